package engine

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// placed is an engine as a Server sees it: on a device, or on the CPU
// (nil Device).
type placed interface {
	comparable
	Device() *device.Device
}

// CheckEngines is the error of a Server's NewServer (package pkg) over
// engines: none, or a nil one.
func CheckEngines[E placed](pkg string, engines []E) error {
	if len(engines) == 0 {
		return fmt.Errorf("%s: NewServer needs at least one engine", pkg)
	}
	var none E
	for i, e := range engines {
		if e == none {
			return fmt.Errorf("%s: NewServer: engine %d is nil", pkg, i)
		}
	}
	return nil
}

// NewBatcher is a Server's batcher of one operation: a worker per engine
// running run on it, and the CPU path of lone requests running run on
// cpu, unless every engine computes on the CPU already (batch.NewWithCPU).
func NewBatcher[E placed, Q, R any](opts batch.Options, engines []E, cpu E, run func(E, []Q) ([]R, error)) *batch.Batcher[Q, R] {
	workers := make([]batch.RunFunc[Q, R], len(engines))
	allCPU := true
	for i, e := range engines {
		workers[i] = func(reqs []Q) ([]R, error) { return run(e, reqs) }
		allCPU = allCPU && e.Device() == nil
	}
	var offload batch.RunFunc[Q, R]
	if !allCPU {
		offload = func(reqs []Q) ([]R, error) { return run(cpu, reqs) }
	}
	return batch.NewWithCPU(opts, offload, workers...)
}
