package main

import "reflect"

// engineCache holds the engines of one run of a command on one device,
// one of each type (an algorithm's Engine), each made when the first
// operation that needs it runs: a run builds only the kernels of the
// operations it runs, and the operations of one package share its
// engine.
type engineCache map[reflect.Type]any

// engineOf is c's engine of type E, made by newEngine at the first call
// (an error is returned and nothing kept; the next call tries again).
func engineOf[E any](c engineCache, newEngine func() (E, error)) (E, error) {
	key := reflect.TypeFor[E]()
	if e, ok := c[key]; ok {
		return e.(E), nil
	}
	e, err := newEngine()
	if err != nil {
		return e, err
	}
	c[key] = e
	return e, nil
}
