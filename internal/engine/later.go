package engine

import (
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Later is a value made on a goroutine of its own while the work that
// needs it later goes on: a call's slice of a million results (24 MB
// that the runtime zeroes on one core) is made while its first batches
// pack and run on the device, instead of before them.
type Later[T any] struct {
	ready atomic.Bool // value is made: Get need not wait on done
	done  chan struct{}
	value T
}

// MakeLater starts making the value with build.
func MakeLater[T any](build func() T) *Later[T] {
	l := &Later[T]{done: make(chan struct{})}
	go func() {
		l.value = build()
		l.ready.Store(true)
		close(l.done)
	}()
	return l
}

// Get waits for the value and returns it. Once the value is made, Get
// only loads a flag: calls per element, from every core, cost nothing.
func (l *Later[T]) Get() T {
	if !l.ready.Load() {
		<-l.done
	}
	return l.value
}

// laterAt is the least number of results that LaterSlice makes on a
// goroutine of its own.
const laterAt = 4096

// Ready is a Later whose value is made already: v.
func Ready[T any](v T) *Later[T] {
	l := &Later[T]{value: v}
	l.ready.Store(true)
	return l
}

// LaterSlice is a Later slice of a call's n results (zero values), made
// in c's step "outputs", its pages written there too (touchPages). A
// slice of fewer than laterAt results is made at once: a goroutine to
// make it costs more than it saves (a lone request waits for the
// goroutine to be scheduled).
func LaterSlice[T any](c *Core, n int) *Later[[]T] {
	if n < laterAt {
		return Ready(make([]T, n))
	}
	return MakeLater(func() []T {
		defer c.Step("outputs")()
		s := make([]T, n)
		touchPages(s)
		return s
	})
}

// touchPages writes the zero value to one element of each page of s, on
// all cores. A slice of a million results is 24 MB that the runtime may
// take fresh from the system, unzeroed and unmapped: then the first write
// to each page faults, and those faults fell on the unpacking of results,
// after the kernels.
func touchPages[T any](s []T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size == 0 || len(s) == 0 {
		return
	}
	step := max(os.Getpagesize()/size, 1)
	pages := (len(s) + step - 1) / step
	batch.Parallel(pages, 256, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s[p*step] = zero
		}
	})
	s[len(s)-1] = zero // the last page, where the stride stepped over it
}
