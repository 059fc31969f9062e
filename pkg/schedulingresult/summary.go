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

package schedulingresult

import "time"

// Summary is the compact form of an attempt, the Pod's SummaryAnnotation
// and the summary of its full result: its size does not grow with the
// number of nodes. sim-scheduler writes it; kubectl sim reads it.
type Summary struct {
	Profile       string `json:"profile"`
	Outcome       string `json:"outcome"`
	Message       string `json:"message,omitempty"`
	SelectedNode  string `json:"selectedNode,omitempty"`
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Victims: the Pods preemption evicts for the nominated node.
	Victims []string `json:"victims,omitempty"`
	// Nodes in the snapshot; Evaluated and Feasible as the scheduler counts.
	Nodes     int `json:"nodes"`
	Evaluated int `json:"evaluated"`
	Feasible  int `json:"feasible"`
	// FilterFailures: the nodes rejected, by plugin and reason, most first.
	FilterFailures []FilterFailure `json:"filterFailures,omitempty"`
	// TopScores: the best final (weighted, summed) scores, best first.
	TopScores []NodeScore `json:"topScores,omitempty"`
	Time      time.Time   `json:"time"`
	Duration  string      `json:"duration"`
}

// FilterFailure counts the nodes one plugin rejected for one reason.
type FilterFailure struct {
	Plugin string `json:"plugin"`
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
}

// NodeScore is a node's total final score.
type NodeScore struct {
	Node  string `json:"node"`
	Score int64  `json:"score"`
}
