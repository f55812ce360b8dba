//go:build tools

// Package tools names every main package the test bed builds from k8s.io/kubernetes, so that
// `go mod tidy` records them (and their test-only imports for e2e.test) in this wrapper module.
package tools

import (
	_ "github.com/onsi/ginkgo/v2/ginkgo"
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/test/e2e"
	_ "k8s.io/kubernetes/test/images/agnhost"
	_ "k8s.io/kubernetes/test/images/nonewprivs"
)
