package engine

import "sync/atomic"

// Later is a value made on a goroutine of its own while the work that
// needs it later goes on: a call's slice of a million results (24 MB
// that the runtime zeroes on one core, 2 to 3 ms) is made while its
// first batches pack and run on the device, instead of before them.
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

// Ready is a Later whose value is made already: v.
func Ready[T any](v T) *Later[T] {
	l := &Later[T]{value: v}
	l.ready.Store(true)
	return l
}

// LaterSlice is a Later slice of a call's n results (zero values), made
// in c's step "outputs".
func LaterSlice[T any](c *Core, n int) *Later[[]T] {
	return MakeLater(func() []T {
		defer c.Step("outputs")()
		return make([]T, n)
	})
}
