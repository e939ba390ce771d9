//go:build !cuda

package main

import (
	"strings"
	"testing"
)

// Without the build tag cuda, kernelinfo --compute-capability (the cache
// filled ahead with NVRTC) fails naming the flag and the tag.
func TestKernelInfoAheadNeedsCUDA(t *testing.T) {
	err := cmdKernelInfo([]string{"--compute-capability", "9.0"})
	if err == nil || !strings.Contains(err.Error(), "--compute-capability 9.0") || !strings.Contains(err.Error(), "-tags cuda") {
		t.Errorf("kernelinfo --compute-capability 9.0 without the tag cuda: %v", err)
	}
}
