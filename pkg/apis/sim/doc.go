// +k8s:deepcopy-gen=package
// +groupName=sim.x-k8s.io

// Package sim is the internal version of the sim.x-k8s.io API.
package sim
