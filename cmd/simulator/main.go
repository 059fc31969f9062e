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

// Command simulator runs inside each simulator Pod: it supervises the
// inner kube-apiserver, kube-scheduler, kube-controller-manager and kwok
// controller (a child that exits is restarted with backoff; SIGTERM stops
// them all and exits 0), and serves the simulator API of KEP-159.
//
// Environment (each has a flag; a non-empty variable wins):
//
//	KUBE_API_PORT                      inner kube-apiserver port (3131)
//	PORT                               simulator server port (1212)
//	KUBE_SCHEDULER_CONFIG_PATH         KubeSchedulerConfiguration file (defaults)
//	KUBE_SCHEDULER_SIMULATOR_ETCD_URL  etcd of the inner kube-apiserver (required)
//	CORS_ALLOWED_ORIGIN_LIST           comma-separated origins, e.g. http://localhost:3000
//	SIMULATOR_CREDENTIALS_DIR          ca.crt, apiserver.crt/key, admin.crt/key, sa.key/pub (/etc/simulator/credentials)
//	SIMULATOR_ETCD_PREFIX              etcd key prefix (/registry)
//	SIMULATOR_BIN_DIR                  kube-apiserver, kube-scheduler, kube-controller-manager, kwok (this binary's directory, then PATH)
//	SIMULATOR_DATA_DIR                 generated files (a temporary directory)
//	SIMULATOR_SCHEDULER_PORT           kube-scheduler secure port on 127.0.0.1 (10259)
//	SIMULATOR_KWOK_PORT                kwok server port on 127.0.0.1, 0 for none (10247)
//	SIMULATOR_BIND_ADDRESS             where kube-apiserver and the server listen (0.0.0.0)
//	SIMULATOR_ADVERTISE_ADDRESS        kube-apiserver advertise address (the bind address, or its own choice)
//	SIMULATOR_TERMINATION_MESSAGE_PATH why the simulator ended, written if the file exists (/dev/termination-log)
//
// It ends with an error, in the termination message as well, when it cannot
// start, and when kube-apiserver has not been ready for 30 s and its etcd
// cannot be used ("EtcdUnavailable: …", naming the etcd endpoint and what
// failed); sim-apiserver shows it in the simulator's status.
//
// API on PORT, HTTPS with the serving certificate (apiserver.crt). Only
// /healthz and /readyz answer without credentials; the rest answers the
// simulator's admin client certificate (admin.crt, which sim-apiserver
// holds) alone: 401 without a certificate of ca.crt, 403 for any other
// identity. Users reach it through the host's simulators/api subresource.
//
//	GET  /healthz                                   the process is alive
//	GET  /readyz                                    200 when kube-apiserver /readyz and kube-scheduler /healthz are ok;
//	                                                ?wait=1s holds a 503 up to that long (at most 2s) and answers
//	                                                200 as soon as they are (the Pod's readiness probe)
//	GET  /api/v1/schedulerconfiguration             the completed KubeSchedulerConfiguration in effect (JSON)
//	PUT  /api/v1/schedulerconfiguration             YAML or JSON; 400 with the reason if kube-scheduler refuses it,
//	                                                else 200 and kube-scheduler restarts with it
//	PUT  /api/v1/reset                              delete user objects from the inner cluster
//	GET  /api/v1/schedulingresults/{namespace}/{pod} the full result of the Pod's latest scheduling attempt
//	GET  /api/v1/export                             the scenario (kube-scheduler-simulator's shape)
//	POST /api/v1/import                             recreate a scenario
//	GET  /debug/processes                           the children: PIDs, starts, last exit
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/app"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/termination"
)

func main() {
	os.Exit(cli.Run(newCommand()))
}

func newCommand() *cobra.Command {
	o := config.NewOptions()
	cmd := &cobra.Command{
		Use:   "simulator",
		Short: "Run a scheduler simulator: kube-apiserver, kube-scheduler, kube-controller-manager and kwok, and the simulator API",
		Long: `Run a scheduler simulator: kube-apiserver, kube-scheduler and kwok as
supervised children, and the simulator API (health, scheduler configuration,
reset). Every flag has an environment variable, which wins when set.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := run(o)
			if err != nil {
				if writeErr := termination.Write(o.TerminationMessagePath, err); writeErr != nil {
					klog.Background().Error(writeErr, "Writing the termination message", "path", o.TerminationMessagePath)
				}
			}
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func run(o *config.Options) error {
	if err := o.ApplyEnv(os.LookupEnv); err != nil {
		return err
	}
	o.Complete()
	if err := o.Validate(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(klog.NewContext(context.Background(), klog.Background()), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		// A second signal ends the process at once.
		<-ctx.Done()
		stop()
	}()
	return app.Run(ctx, o)
}
