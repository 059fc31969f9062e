// How a component is held stopped, shared by the simulator's supervisor of
// separate processes (the main module) and the runtime of the components
// sharing one process (cmd/sim-scheduler, a module of its own because it
// links k8s.io/kubernetes). A module of its own, without dependencies, so
// that both import it without taking each other's.
module sigs.k8s.io/simulator-apiserver/pkg/hold

go 1.26.0
