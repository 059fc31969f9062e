#!/usr/bin/env bash
# Copyright 2026 The Kubernetes Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Removes sim-apiserver from the cluster of the current kubeconfig and leaves
# nothing of it behind, in this order:
#
#   1. every Simulator and NodePool, while the server still runs, so that
#      their finalizers clean up (external etcd keys) and the host's garbage
#      collector removes what they own (Pods, Services, Secrets, accounts,
#      Roles, RoleBindings, NetworkPolicies) in every namespace;
#   2. the RoleBindings and ClusterRoleBindings that refer to the ClusterRoles
#      of artifacts/deploy: namespaces' opt-ins (sim-apiserver:namespace)
#      and users' grants (sim-x-k8s-io:view, sim-x-k8s-io:edit);
#   3. artifacts/deploy itself: the APIService first (so that no namespace
#      deletion waits on a server that is going), then the rest, sim-system
#      and its records included.
#
# It fails, and removes nothing more, if step 1 leaves anything.
#
# Usage: hack/uninstall.sh [--timeout DURATION]   (default 5m)

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
timeout=5m
while [[ $# -gt 0 ]]; do
  case "$1" in
    --timeout) timeout="$2"; shift ;;
    --timeout=*) timeout="${1#*=}" ;;
    *) echo "usage: $0 [--timeout DURATION]" >&2; exit 2 ;;
  esac
  shift
done

owned_kinds=pods,services,secrets,serviceaccounts,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io,networkpolicies.networking.k8s.io

if kubectl get apiservice v1alpha1.sim.x-k8s.io >/dev/null 2>&1; then
  echo "=== deleting every Simulator and NodePool (their finalizers clean up)"
  kubectl delete nodepools.sim.x-k8s.io,simulators.sim.x-k8s.io --all --all-namespaces --wait --timeout="${timeout}"
  echo "=== waiting for the garbage collector to remove what they owned"
  # Objects the server made carry the simulator's label and its owner
  # reference; a tenant's own labelled objects (no such owner) are theirs.
  owned() {
    kubectl get "${owned_kinds}" --all-namespaces -l sim.x-k8s.io/simulator \
      -o jsonpath='{range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name} {.metadata.ownerReferences[*].apiVersion}{"\n"}{end}' |
      { grep ' .*sim\.x-k8s\.io/' || true; }
  }
  deadline=$((SECONDS + 120))
  while [[ -n "$(owned)" ]]; do
    if ((SECONDS > deadline)); then
      echo "still there after the simulators went:" >&2
      owned >&2
      exit 1
    fi
    sleep 2
  done
fi

echo "=== deleting the bindings to sim-apiserver's ClusterRoles"
is_ours() { [[ "$1" == ClusterRole && ( "$2" == sim-apiserver* || "$2" == sim-x-k8s-io:* ) ]]; }
kubectl get rolebindings.rbac.authorization.k8s.io --all-namespaces \
  -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name} {.roleRef.kind} {.roleRef.name}{"\n"}{end}' |
  while read -r ns name kind role; do
    if is_ours "${kind}" "${role}"; then
      kubectl delete rolebinding -n "${ns}" "${name}" --ignore-not-found
    fi
  done
kubectl get clusterrolebindings.rbac.authorization.k8s.io \
  -o jsonpath='{range .items[*]}{.metadata.name} {.roleRef.kind} {.roleRef.name}{"\n"}{end}' |
  while read -r name kind role; do
    # The deployment's own bindings go with artifacts/deploy below.
    if is_ours "${kind}" "${role}" && [[ "${name}" != sim-apiserver* ]]; then
      kubectl delete clusterrolebinding "${name}" --ignore-not-found
    fi
  done

echo "=== deleting artifacts/deploy"
kubectl delete apiservice v1alpha1.sim.x-k8s.io --ignore-not-found --wait --timeout="${timeout}"
kubectl delete -k "${REPO_ROOT}/artifacts/deploy" --ignore-not-found --wait --timeout="${timeout}"
echo "sim-apiserver is uninstalled"
