/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

const (
	// criNamespace is containerd's namespace for the kubelet's containers.
	criNamespace = "k8s.io"
	// pauseImage is the sandbox image, built locally (hack/build-images.sh).
	pauseImage = "sim.x-k8s.io/pause:1.0"
	// cniBinDir is where Debian's containernetworking-plugins installs.
	cniBinDir = "/usr/lib/cni"
)

// The node directory's containerd layout.
func containerdDir(dir string) string    { return filepath.Join(dir, "containerd") }
func containerdSocket(dir string) string { return filepath.Join(containerdDir(dir), "containerd.sock") }
func containerdState(dir string) string  { return filepath.Join(containerdDir(dir), "state") }

// containerdTaskDir holds a directory per running container of the CRI
// namespace, named by its ID.
func containerdTaskDir(dir string) string {
	return filepath.Join(containerdState(dir), "io.containerd.runtime.v2.task", criNamespace)
}

// containerdConfig keeps everything containerd writes under the node
// directory (root, state, socket, runc state, /opt, pod network namespaces)
// except what v1.6 cannot move: shim sockets in /run/containerd/s.
// restrict_oom_score_adj: without CAP_SYS_RESOURCE runc cannot give the
// sandbox its -998 and the pod does not start.
var containerdConfig = template.Must(template.New("containerd").Parse(`version = 2
root = "{{.Dir}}/root"
state = "{{.Dir}}/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]

[grpc]
  address = "{{.Socket}}"

[plugins."io.containerd.internal.v1.opt"]
  path = "{{.Dir}}/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{{.PauseImage}}"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  enable_selinux = false
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "{{.Dir}}/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{{.CNIBinDir}}"
    conf_dir = "{{.CNIConfDir}}"
    max_conf_num = 1
`))

// noPullEnv sends whatever containerd would pull (an image the node lacks)
// to a closed loopback port, so that a pull fails at once instead of
// reaching a registry: images are imported, the machine talks to no one.
var noPullEnv = map[string]string{
	"HTTP_PROXY":  "http://127.0.0.1:1",
	"HTTPS_PROXY": "http://127.0.0.1:1",
	"NO_PROXY":    "",
	"http_proxy":  "http://127.0.0.1:1",
	"https_proxy": "http://127.0.0.1:1",
	"no_proxy":    "",
}

// startContainerd writes the CNI and containerd configurations and starts
// containerd, waiting until it answers.
func startContainerd(ctx context.Context, c *Cluster, dir string) (*process, error) {
	cniConfDir, err := writeCNIConfig(dir)
	if err != nil {
		return nil, err
	}
	var config bytes.Buffer
	if err := containerdConfig.Execute(&config, map[string]string{
		"Dir":        containerdDir(dir),
		"Socket":     containerdSocket(dir),
		"PauseImage": pauseImage,
		"CNIBinDir":  cniBinDir,
		"CNIConfDir": cniConfDir,
	}); err != nil {
		return nil, fmt.Errorf("rendering the containerd configuration: %w", err)
	}
	configFile := filepath.Join(containerdDir(dir), "config.toml")
	if err := os.MkdirAll(containerdDir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", containerdDir(dir), err)
	}
	if err := os.WriteFile(configFile, config.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("writing %s: %w", configFile, err)
	}
	p, err := startProcessWithEnv(ctx, "containerd", c.logDir(), noPullEnv, "containerd", "--config="+configFile, "--log-level=info")
	if err != nil {
		return nil, err
	}
	err = waitFor(ctx, p, 30*time.Second, func(ctx context.Context) (bool, error) {
		_, err := ctr(ctx, containerdSocket(dir), "version")
		return err == nil, nil
	})
	if err != nil {
		return p, fmt.Errorf("waiting for containerd: %w", err)
	}
	return p, nil
}

// ctr runs containerd's client in the CRI namespace.
func ctr(ctx context.Context, socket string, args ...string) (string, error) {
	return runCommand(ctx, "ctr", append([]string{"--address=" + socket, "--namespace=" + criNamespace}, args...)...)
}

// importImages imports docker-archive tarballs into the CRI namespace and
// unpacks them for the overlayfs snapshotter, so that pods start without a
// pull.
func importImages(ctx context.Context, socket string, tarballs []string) error {
	for _, tarball := range tarballs {
		if _, err := ctr(ctx, socket, "images", "import", "--snapshotter=overlayfs", tarball); err != nil {
			return fmt.Errorf("importing image %s: %w", tarball, err)
		}
	}
	return nil
}

// removeTasks kills and deletes every container process of the CRI
// namespace, so that the shims exit and unmount the root filesystems. A pod's
// containers share a shim, which may go away under a delete: it retries
// until none is left.
func removeTasks(ctx context.Context, socket string) error {
	var lastErr error
	for range 3 {
		out, err := ctr(ctx, socket, "tasks", "list", "--quiet")
		if err != nil {
			return err
		}
		ids := strings.Fields(out)
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			_, _ = ctr(ctx, socket, "tasks", "kill", "--signal=SIGKILL", id)
		}
		for _, id := range ids {
			if _, err := ctr(ctx, socket, "tasks", "delete", "--force", id); err != nil {
				lastErr = err
			}
		}
	}
	return fmt.Errorf("containers left after three rounds: %w", lastErr)
}
