//go:build tools

// Package tools makes critest (a test binary of sigs.k8s.io/cri-tools) buildable with
// `go test -c` from this wrapper module.
package tools

import (
	_ "sigs.k8s.io/cri-tools/cmd/critest"
)
