package batch

import (
	"fmt"
	"strings"
)

// Error reports which elements of a batch failed. Errs has one entry per
// element of the batch, nil for those that succeeded; their results are
// valid.
type Error struct {
	Errs []error
}

// Collect returns nil when every entry of errs is nil, else an *Error.
func Collect(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return &Error{Errs: errs}
		}
	}
	return nil
}

// Failed is the number of failed elements.
func (e *Error) Failed() int {
	n := 0
	for _, x := range e.Errs {
		if x != nil {
			n++
		}
	}
	return n
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d batch elements failed", e.Failed(), len(e.Errs))
	shown := 0
	for i, x := range e.Errs {
		if x == nil {
			continue
		}
		if shown == 3 {
			b.WriteString("; ...")
			break
		}
		fmt.Fprintf(&b, "; element %d: %v", i, x)
		shown++
	}
	return b.String()
}

// Unwrap gives the non-nil element errors to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	var out []error
	for _, x := range e.Errs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}
