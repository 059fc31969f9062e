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

package sharedruntime

import (
	"errors"
	"fmt"
	"net/http"

	"k8s.io/klog/v2"
)

// HoldPath is the path prefix of HoldHandler: POST HoldPath+NAME holds
// component NAME for as long as the request lasts.
const HoldPath = "/hold/"

// HoldHandler holds components for its clients: POST HoldPath+NAME stops
// component NAME (Runtime.Hold), answers 200 with the line "held" once it
// has returned, and keeps it from starting until the client ends the
// request, closing its connection. A hold thus ends with the client that
// holds it, had it crashed. An unknown component is a 404, a server one a
// 400.
func HoldHandler(r *Runtime) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+HoldPath+"{name}", func(w http.ResponseWriter, req *http.Request) {
		name := req.PathValue("name")
		logger := klog.FromContext(req.Context()).WithValues("component", name)
		release, err := r.Hold(req.Context(), name)
		var unknown *unknownComponentError
		switch {
		case errors.As(err, &unknown):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case errors.Is(err, errServer):
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		case err != nil:
			// The client went away while it waited.
			return
		}
		defer release()
		logger.Info("Component held for a client")
		defer logger.Info("Component's hold ended")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, "held")
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-req.Context().Done()
	})
	return mux
}
