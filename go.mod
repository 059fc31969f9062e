module sigs.k8s.io/simulator-apiserver

go 1.26
