package batch

import (
	"log"
	"sync"
)

// Fallbacks counts the batches that a device failed and the CPU computed
// instead, and tells a callback (default: log.Print) about each. The
// device engines keep one; it is safe for concurrent use.
type Fallbacks struct {
	mu     sync.Mutex
	notify func(error)
	n      int
}

// OnFallback sets the function told about each fallback (nil: log.Print).
func (f *Fallbacks) OnFallback(notify func(error)) {
	f.mu.Lock()
	f.notify = notify
	f.mu.Unlock()
}

// Count is the number of fallbacks so far.
func (f *Fallbacks) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Report counts one fallback and passes err (which says what failed and
// that the CPU took over) to the callback.
func (f *Fallbacks) Report(err error) {
	f.mu.Lock()
	f.n++
	notify := f.notify
	f.mu.Unlock()
	if notify != nil {
		notify(err)
	} else {
		log.Print(err)
	}
}
