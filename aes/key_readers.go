package aes

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The CPU path of Seal and Open reads many keys in one pass (a batch of
// records, each with its own key) without holding each one: holding is an
// atomic add on the key's line, and releasing another, which cost a batch
// of small records more than their GHASH did. A pass enters keyReaders
// once instead, and checks each key's closed flag when it reaches it:
// Close sets the flag, then waits for the passes that entered before
// (wait), then for the holders. A pass that found a key open computes
// with it to the end; one that found it closed fails that element.

// keyReaders counts the passes in flight by the parity of the epoch they
// entered in; wait advances the epoch and waits for the old one's passes
// to exit (one wait at a time).
type keyReaders struct {
	mu     sync.Mutex
	epoch  atomic.Uint64
	active [2]atomic.Int64
}

// readers are the passes of every engine.
var readers keyReaders

// enter registers a pass; the epoch it returns is exit's.
func (r *keyReaders) enter() uint64 {
	for {
		e := r.epoch.Load()
		r.active[e&1].Add(1)
		if r.epoch.Load() == e {
			return e
		}
		r.active[e&1].Add(-1) // wait advanced it meanwhile: enter the new one
	}
}

// exit ends a pass that entered in epoch e.
func (r *keyReaders) exit(e uint64) { r.active[e&1].Add(-1) }

// wait returns once every pass that entered before it was called has
// exited. A pass that entered after it was called sees what the caller
// stored before (the sequentially consistent atomics order them).
func (r *keyReaders) wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.epoch.Add(1) - 1
	for spins := 0; r.active[e&1].Load() > 0; spins++ {
		if spins < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
}
