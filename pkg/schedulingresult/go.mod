// The format of stored scheduling results, shared by the scheduler that
// writes them (cmd/sim-scheduler, a module of its own because it links
// k8s.io/kubernetes) and the simulator that serves them (the main module).
// A module of its own, without dependencies, so that both import it
// without taking each other's.
module sigs.k8s.io/simulator-apiserver/pkg/schedulingresult

go 1.26.0
