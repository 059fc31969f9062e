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

// Package schedconfig holds the simulator's KubeSchedulerConfiguration: it
// takes one in YAML or JSON, forces the fields the simulator owns, has
// kube-scheduler itself check it, and keeps the file kube-scheduler runs
// and the configuration in effect.
//
// The check is a dry start of the very kube-scheduler binary that will run
// the configuration (--write-config-to, which loads, defaults, validates
// and builds every profile's framework, then writes the completed
// configuration and exits). It rejects everything the real start would —
// including unknown plugins and bad plugin arguments, which the config API's
// validation alone lets through — and cannot drift from the binary's
// version, without importing k8s.io/kubernetes into this module.
package schedconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
)

// The configuration's type.
const (
	APIVersion = "kubescheduler.config.k8s.io/v1"
	Kind       = "KubeSchedulerConfiguration"
)

// InvalidError is a configuration the scheduler refuses; Reason says why.
type InvalidError struct{ Reason string }

func (e *InvalidError) Error() string { return "invalid KubeSchedulerConfiguration: " + e.Reason }

// IsInvalid reports whether err is (or wraps) an InvalidError.
func IsInvalid(err error) bool {
	var invalid *InvalidError
	return errors.As(err, &invalid)
}

func invalidf(format string, args ...any) error {
	return &InvalidError{Reason: fmt.Sprintf(format, args...)}
}

// Normalize parses data, a KubeSchedulerConfiguration v1 in YAML or JSON
// (empty means all defaults), and returns it as JSON with the fields the
// simulator owns forced: clientConnection.kubeconfig is the simulator's
// admin kubeconfig and leader election is off. Without a client rate
// (clientConnection.qps and burst), it gets the control plane's
// (config.ClientQPS): at kube-scheduler's default, 50 a second for its
// bindings, a trace replayed faster than the scheduler's client may write
// would measure the client's limit. Every other field is kept as written
// for kube-scheduler's strict decoding.
func Normalize(data []byte, kubeconfig string) ([]byte, error) {
	obj := map[string]any{"apiVersion": APIVersion, "kind": Kind}
	if len(bytes.TrimSpace(data)) > 0 {
		jsonData, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			return nil, invalidf("not YAML or JSON: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(jsonData))
		dec.UseNumber()
		obj = nil
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, invalidf("not a YAML or JSON object")
		}
	}
	if obj["apiVersion"] != APIVersion || obj["kind"] != Kind {
		return nil, invalidf("apiVersion must be %s and kind %s, got %v and %v", APIVersion, Kind, obj["apiVersion"], obj["kind"])
	}
	set := func(field, key string, value any) error {
		m, ok := obj[field].(map[string]any)
		if !ok {
			if obj[field] != nil {
				return invalidf("%s must be an object", field)
			}
			m = map[string]any{}
		}
		m[key] = value
		obj[field] = m
		return nil
	}
	if err := set("clientConnection", "kubeconfig", kubeconfig); err != nil {
		return nil, err
	}
	conn := obj["clientConnection"].(map[string]any)
	_, qps := conn["qps"]
	_, burst := conn["burst"]
	if !qps && !burst {
		conn["qps"], conn["burst"] = config.ClientQPS, config.ClientBurst
	}
	if err := set("leaderElection", "leaderElect", false); err != nil {
		return nil, err
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding the configuration: %w", err)
	}
	return out, nil
}

// Checker checks the configuration file at path the way kube-scheduler
// loads it, and returns the completed configuration in effect as JSON; a
// configuration it refuses gives an InvalidError.
type Checker interface {
	Check(ctx context.Context, path string) ([]byte, error)
}

// Store is the simulator's scheduler configuration: the file kube-scheduler
// runs, and the completed configuration in effect.
type Store struct {
	path       string
	kubeconfig string
	checker    Checker

	// mu serializes updates; effective is read under it too.
	mu        sync.Mutex
	effective []byte
}

// NewStore keeps the configuration in path; kubeconfig is what
// kube-scheduler is made to use.
func NewStore(path, kubeconfig string, checker Checker) *Store {
	return &Store{path: path, kubeconfig: kubeconfig, checker: checker}
}

// Path is the file kube-scheduler runs.
func (s *Store) Path() string { return s.path }

// Effective is the completed configuration in effect, as JSON; nil before
// the first successful Set.
func (s *Store) Effective() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effective
}

// Set checks data and, if kube-scheduler accepts it, makes it the
// configuration kube-scheduler runs (from its next start) and returns the
// completed configuration. A refused configuration gives an InvalidError
// and changes nothing.
func (s *Store) Set(ctx context.Context, data []byte) ([]byte, error) {
	normalized, err := Normalize(data, s.kubeconfig)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	candidate, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".candidate-*")
	if err != nil {
		return nil, fmt.Errorf("writing the candidate configuration: %w", err)
	}
	defer func() { _ = os.Remove(candidate.Name()) }()
	_, err = candidate.Write(normalized)
	if closeErr := candidate.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, fmt.Errorf("writing the candidate configuration: %w", err)
	}
	effective, err := s.checker.Check(ctx, candidate.Name())
	if err != nil {
		return nil, err
	}
	if err := os.Rename(candidate.Name(), s.path); err != nil {
		return nil, fmt.Errorf("installing the configuration: %w", err)
	}
	s.effective = effective
	klog.FromContext(ctx).Info("Scheduler configuration accepted", "path", s.path)
	return effective, nil
}
