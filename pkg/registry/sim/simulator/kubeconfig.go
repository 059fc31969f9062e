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

package simulator

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// Bounds of ?expirationSeconds=. The host refuses tokens shorter than 10 minutes.
const (
	DefaultKubeconfigExpiration = time.Hour
	MinKubeconfigExpiration     = 10 * time.Minute
	MaxKubeconfigExpiration     = 24 * time.Hour
)

// KubeconfigOptions say how users reach the host.
type KubeconfigOptions struct {
	// ServerURL is the host apiserver's URL for users. (The request cannot
	// tell: the aggregator rewrites its Host to this server's address.)
	ServerURL string
	// HostCA verifies the host apiserver's serving certificate.
	HostCA []byte
}

// KubeconfigREST serves simulators/kubeconfig: a kubeconfig that kubectl can
// use as it is.
type KubeconfigREST struct {
	store      *genericregistry.Store
	authorizer authorizer.Authorizer
	access     *inner.Access
	tokens     corev1client.ServiceAccountsGetter
	accounts   metadatalister.Lister
	opts       KubeconfigOptions
}

var _ rest.Connecter = &KubeconfigREST{}

func (r *KubeconfigREST) New() runtime.Object { return &sim.SimulatorKubeconfigOptions{} }
func (r *KubeconfigREST) Destroy()            {}

func (r *KubeconfigREST) ConnectMethods() []string { return []string{http.MethodGet} }

func (r *KubeconfigREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &sim.SimulatorKubeconfigOptions{}, false, ""
}

func (r *KubeconfigREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*sim.SimulatorKubeconfigOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	expiration, err := kubeconfigExpiration(o.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	if o.Mode != "" && o.Mode != sim.KubeconfigModeProxy && o.Mode != sim.KubeconfigModeDirect {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("mode %q is not one of %q, %q", o.Mode, sim.KubeconfigModeProxy, sim.KubeconfigModeDirect))
	}
	s, caller, err := connectee(ctx, r.store, name)
	if err != nil {
		return nil, err
	}
	if o.Mode == sim.KubeconfigModeDirect && throughPodsProxy(s) {
		// Its Pod's IP is the hosting cluster's, seldom routable from here.
		return nil, apierrors.NewBadRequest(fmt.Sprintf("simulator %s is hosted in another cluster, reached through its pods/proxy: ?mode=direct is not offered, use the proxy kubeconfig (the default)", s.Name))
	}
	// A kubeconfig never grants more than its caller holds through the proxy.
	held, err := proxyVerbsHeld(ctx, r.authorizer, caller, s)
	if err != nil {
		return nil, err
	}
	writer, reader := backing.ProxyAccounts(s.Name)
	var account backing.ProxyAccount
	switch {
	case o.Mode == sim.KubeconfigModeDirect && len(held) < len(backing.ProxyVerbs):
		// The certificate acts inside as the caller, with every right there.
		return nil, forbidden(caller, s, fmt.Sprintf("?mode=direct is full use of the simulator and needs %s on simulators/proxy; missing %s",
			strings.Join(backing.ProxyVerbs, ", "), strings.Join(missing(backing.ProxyVerbs, held), ", ")))
	case len(held) == len(backing.ProxyVerbs):
		account = writer
	case slices.Contains(held, "get"):
		account = reader
	default:
		return nil, forbidden(caller, s, "a kubeconfig uses the simulator's proxy, and the caller cannot get simulators/proxy")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var cfg *clientcmdapi.Config
		var err error
		if o.Mode == sim.KubeconfigModeDirect {
			cfg, err = r.directKubeconfig(req.Context(), s, caller, expiration)
		} else {
			cfg, err = r.proxyKubeconfig(req, s, account.Name, expiration)
		}
		if err != nil {
			responder.Error(err)
			return
		}
		data, err := clientcmd.Write(*cfg)
		if err != nil {
			responder.Error(apierrors.NewInternalError(err))
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(data)
	}), nil
}

// nodePortAnswerWait bounds how long a direct kubeconfig of a simulator
// hosted at a NodePort waits for it to answer, a NodePort that accepts
// and then hangs included; refusals alone end sooner (the route's
// transport tries them again for 10 s).
const nodePortAnswerWait = 15 * time.Second

func kubeconfigExpiration(seconds *int64) (time.Duration, error) {
	if seconds == nil {
		return DefaultKubeconfigExpiration, nil
	}
	d := time.Duration(*seconds) * time.Second
	if d < MinKubeconfigExpiration || d > MaxKubeconfigExpiration {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("expirationSeconds must be between %d and %d", int64(MinKubeconfigExpiration.Seconds()), int64(MaxKubeconfigExpiration.Seconds())))
	}
	return d, nil
}

// proxyVerbsHeld returns which of the proxy verbs the caller holds on the
// simulator (a SubjectAccessReview each, cached by the delegated authorizer).
func proxyVerbsHeld(ctx context.Context, authz authorizer.Authorizer, caller user.Info, s *sim.Simulator) ([]string, error) {
	var held []string
	for _, verb := range backing.ProxyVerbs {
		decision, _, err := authz.Authorize(ctx, proxyAttributes(caller, s, verb))
		if err != nil && decision != authorizer.DecisionAllow {
			return nil, apierrors.NewInternalError(fmt.Errorf("checking %s on simulators/proxy: %w", verb, err))
		}
		if decision == authorizer.DecisionAllow {
			held = append(held, verb)
		}
	}
	return held, nil
}

func missing(want, held []string) []string {
	return slices.DeleteFunc(slices.Clone(want), func(v string) bool { return slices.Contains(held, v) })
}

func forbidden(caller user.Info, s *sim.Simulator, why string) error {
	return apierrors.NewForbidden(sim.Resource("simulators/kubeconfig"), s.Name,
		fmt.Errorf("user %q gets no kubeconfig of simulator %q in namespace %q: %s", caller.GetName(), s.Name, s.Namespace, why))
}

// proxyKubeconfig points at the host's proxy of this simulator with a token
// of account, which may use that proxy (with its verbs) and nothing else.
func (r *KubeconfigREST) proxyKubeconfig(req *http.Request, s *sim.Simulator, account string, expiration time.Duration) (*clientcmdapi.Config, error) {
	server := r.opts.ServerURL + fmt.Sprintf("/apis/%s/v1alpha1/namespaces/%s/simulators/%s/proxy", sim.GroupName, s.Namespace, s.Name)
	seconds := int64(expiration.Seconds())
	// The account must be the simulator's own: a token of a user's account
	// of that name would carry that user's rights.
	sa, err := r.accounts.Namespace(s.Namespace).Get(account)
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("the ServiceAccount %s of simulator %s is not there yet; retry", account, s.Name))
	}
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if !backing.OwnedBy(sa, s.UID) {
		return nil, apierrors.NewConflict(sim.Resource("simulators/kubeconfig"), s.Name, fmt.Errorf("ServiceAccount %s is not controlled by the simulator; no token is minted for it", account))
	}
	token, err := r.tokens.ServiceAccounts(s.Namespace).CreateToken(req.Context(), account, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds},
	}, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("the ServiceAccount %s of simulator %s is not there yet; retry", account, s.Name))
	}
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("requesting a token for %s: %w", account, err))
	}
	return kubeconfig(s, &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: r.opts.HostCA},
		&clientcmdapi.AuthInfo{Token: token.Status.Token}), nil
}

// directKubeconfig points at the inner apiserver (the Pod's IP) with a client
// certificate for the caller, signed by the simulator's CA.
func (r *KubeconfigREST) directKubeconfig(ctx context.Context, s *sim.Simulator, caller user.Info, expiration time.Duration) (*clientcmdapi.Config, error) {
	route, err := reachable(r.access, s, s.Spec.KubeAPIServerPort)
	if err != nil {
		return nil, err
	}
	creds := route.Credentials
	if creds == nil {
		// Through a hosting cluster's pods/proxy: refused before here.
		return nil, apierrors.NewInternalError(fmt.Errorf("simulator %s/%s is reached through its hosting cluster's pods/proxy only", s.Namespace, s.Name))
	}
	if s.Spec.Hosting != nil {
		// At a NodePort, which kube-proxy programs a moment after the
		// simulator is Available: the client would be refused until then.
		ctx, cancel := context.WithTimeout(ctx, nodePortAnswerWait)
		defer cancel()
		if err := route.Answers(ctx); err != nil {
			return nil, retryLater(s, fmt.Sprintf("simulator %s/%s does not answer at its NodePort %s yet: %v", s.Namespace, s.Name, route.URL.Host, err))
		}
	}
	ca, err := pki.LoadCA(creds.CACert, creds.CAKey)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	cert, err := ca.IssueClient(caller.GetName(), caller.GetGroups(), expiration)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return kubeconfig(s,
		&clientcmdapi.Cluster{Server: route.URL.String(), CertificateAuthorityData: creds.CACert, TLSServerName: creds.ServerName},
		&clientcmdapi.AuthInfo{ClientCertificateData: cert.CertPEM, ClientKeyData: cert.KeyPEM}), nil
}

func kubeconfig(s *sim.Simulator, cluster *clientcmdapi.Cluster, auth *clientcmdapi.AuthInfo) *clientcmdapi.Config {
	name := "simulator-" + s.Namespace + "-" + s.Name
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = cluster
	cfg.AuthInfos[name] = auth
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	return cfg
}
