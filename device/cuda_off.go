//go:build !cuda

package device

import "fmt"

// CUDACompiler returns a device of the CUDA backend that can only build
// programs, for the given compute capability ("9.0"). This binary was
// built without the build tag cuda, so it returns an error.
func CUDACompiler(computeCapability string) (*Device, error) {
	return nil, fmt.Errorf("device: CUDACompiler(%q): this binary was built without the build tag cuda (go build -tags cuda)", computeCapability)
}
