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

package contract

import "time"

// An import (POST PathImport) runs in the background, so that the host's
// request timeout (60 s for what is not long-running, as simulators/api is
// not) does not cut it: the POST stores the document and answers 202 with
// its ImportStatus, GET PathImport answers the status of the current or
// last import, and a POST while one runs answers 409.
const (
	// MaxImportBytes bounds an imported document: 50,000 Pods and 5,000
	// Nodes as kube-scheduler-simulator exports them take about 200 MiB.
	// A larger body is refused with 413.
	MaxImportBytes = 256 << 20
	// ImportResumeParam (?resume=true, no body) imports again the document
	// the simulator stored, e.g. after its container restarted mid-import.
	// Objects that exist are counted and left as they are, so resuming, or
	// posting the same document again, creates only what is missing.
	ImportResumeParam = "resume"
)

// Phases of an import.
const (
	ImportImporting = "Importing"
	ImportSucceeded = "Succeeded"
	ImportFailed    = "Failed"
)

// ImportStatus is how the current or last import stands.
type ImportStatus struct {
	// Phase is one of the Import* phases; empty when nothing was imported.
	Phase string `json:"phase,omitempty"`
	// Resources counts the document's objects by resource (pods, nodes,
	// persistentvolumes, ...), as written so far.
	Resources map[string]ImportCounts `json:"resources,omitempty"`
	// StartTime and CompletionTime bound the import.
	StartTime      *time.Time `json:"startTime,omitempty"`
	CompletionTime *time.Time `json:"completionTime,omitempty"`
	// LastError is the last object the inner cluster refused and why, or
	// why the import stopped.
	LastError string `json:"lastError,omitempty"`
}

// ImportCounts are what became of a resource's objects in an import.
type ImportCounts struct {
	// Total is how many the document holds.
	Total int64 `json:"total"`
	// Created were made; Existing were there already and left as they
	// are; Skipped are not copied (finished Pods and Jobs, the namespaces
	// and PriorityClasses every cluster makes itself); Failed were refused.
	Created  int64 `json:"created"`
	Existing int64 `json:"existing"`
	Skipped  int64 `json:"skipped,omitempty"`
	Failed   int64 `json:"failed"`
}
