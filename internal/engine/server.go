package engine

import (
	"errors"
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
// running run on it, and the CPU path of the requests that the CPU
// finishes first running run on cpu (batch.NewWithCPU). Where every
// engine computes on the CPU, it batches nothing: each request is
// computed at once on the first engine, as crypto/* would
// (batch.NewDirect), unless opts.CPUOffload is negative (every request
// batched).
func NewBatcher[E placed, Q, R any](opts batch.Options, engines []E, cpu E, run func(E, []Q) ([]R, error)) *batch.Batcher[Q, R] {
	workers := make([]batch.RunFunc[Q, R], len(engines))
	allCPU := true
	for i, e := range engines {
		workers[i] = func(reqs []Q) ([]R, error) { return run(e, reqs) }
		allCPU = allCPU && e.Device() == nil
	}
	if allCPU {
		if opts.CPUOffload >= 0 {
			return batch.NewDirect(opts, workers[0])
		}
		return batch.New(opts, workers...)
	}
	return batch.NewWithCPU(opts, func(reqs []Q) ([]R, error) { return run(cpu, reqs) }, workers...)
}

// Groups calls run once for each distinct key of reqs (in the order the
// keys first appear), with the indices of the requests that have it: a
// Server's batch mixes requests that need different engine calls (options,
// signature forms, kinds of nonce). A batch of one key, the common one,
// costs no map.
func Groups[Q any, K comparable](reqs []Q, keyOf func(Q) K, run func(key K, idx []int)) {
	if len(reqs) == 0 {
		return
	}
	first := keyOf(reqs[0])
	same := true
	for _, r := range reqs[1:] {
		if keyOf(r) != first {
			same = false
			break
		}
	}
	if same {
		idx := make([]int, len(reqs))
		for i := range idx {
			idx[i] = i
		}
		run(first, idx)
		return
	}
	byKey := map[K][]int{}
	var order []K
	for i, r := range reqs {
		k := keyOf(r)
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	for _, k := range order {
		run(k, byKey[k])
	}
}

// Scatter puts the results of an engine call on the requests idx of a
// batch (Groups) into out, and its errors into errs, at those indices: a
// *batch.Error's per element, any other error to each of them, whose
// results stay zero.
func Scatter[R any](idx []int, res []R, err error, out []R, errs []error) {
	var per *batch.Error
	if err != nil && !errors.As(err, &per) {
		for _, i := range idx {
			errs[i] = err
		}
		return
	}
	for k, i := range idx {
		out[i] = res[k]
		if per != nil {
			errs[i] = per.Errs[k]
		}
	}
}
