// Command sim-apiserver is the aggregated API server of sim.x-k8s.io.
package main

import (
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"sigs.k8s.io/simulator-apiserver/pkg/cmd/server"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	cmd := server.NewCommand(ctx, server.NewOptions(os.Stdout, os.Stderr))
	os.Exit(cli.Run(cmd))
}
