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

// Command httpclient makes the HTTP(S) requests its arguments describe (one
// JSON request.Spec each), one after the other, and prints one JSON
// request.Result per request on stdout: its status, or the error that
// stopped it. A refused request is a result, not a failure: it exits 0
// once every request was tried, 2 on bad arguments. e2e tests run it in a
// Pod (the image sim.x-k8s.io/httpclient of hack/build-images.sh), to
// attack from inside the cluster's network what the node's own network
// reaches too, and read its Pod's log.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"sigs.k8s.io/simulator-apiserver/test/images/httpclient/request"
)

func main() {
	timeout := flag.Duration("timeout", request.DefaultTimeout, "how long each request may take")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [-timeout D] SPEC...\nSPEC is a JSON request: %s\n", os.Args[0],
			`{"name":"…","method":"GET","url":"https://…","certFile":"…","keyFile":"…","caFile":"…","bearerTokenFile":"…"}`)
		flag.PrintDefaults()
	}
	flag.Parse()
	specs, err := request.ParseArgs(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	encoder := json.NewEncoder(os.Stdout)
	for _, spec := range specs {
		if err := encoder.Encode(request.Do(ctx, spec, *timeout)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
