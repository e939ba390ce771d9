package engine

import (
	"sync"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Errors are the per-element errors of a call of n elements, their slice
// made at the first error: a call whose elements all succeed, the common
// case, allocates, zeroes and scans none (a call of a million elements
// had 16 MB of them, made and then collected on one core while the rest
// waited). Set and Get are safe for concurrent use on distinct elements.
type Errors struct {
	n    int
	mu   sync.Mutex // making the slice
	errs atomic.Pointer[[]error]
}

// NewErrors returns the errors of n elements, all nil.
func NewErrors(n int) *Errors { return &Errors{n: n} }

// Set sets element i's error (nil: none).
func (e *Errors) Set(i int, err error) {
	errs := e.errs.Load()
	if errs == nil {
		if err == nil {
			return // nil already
		}
		errs = e.make()
	}
	(*errs)[i] = err
}

// Get is element i's error.
func (e *Errors) Get(i int) error {
	if errs := e.errs.Load(); errs != nil {
		return (*errs)[i]
	}
	return nil
}

// slice is every element's error, or nil when none has one.
func (e *Errors) slice() []error {
	if errs := e.errs.Load(); errs != nil {
		return *errs
	}
	return nil
}

// Err is the call's elements' errors as batch.Collect gives them: nil
// when none has one, else a *batch.Error.
func (e *Errors) Err() error { return batch.Collect(e.slice()) }

// make makes the slice, once.
func (e *Errors) make() *[]error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if errs := e.errs.Load(); errs != nil {
		return errs
	}
	errs := make([]error, e.n)
	e.errs.Store(&errs)
	return &errs
}
