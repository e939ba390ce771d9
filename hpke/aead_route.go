package hpke

import (
	"math/bits"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Where the AES-GCM step of a batch runs: on the host, in the pass that
// computes the key schedule (crypto/cipher, one cipher per message), or
// on the Engine's aes.Engine (which runs it on its device, or on the CPU
// where it measured that faster), after that pass has made an aes.Key of
// each message's key. The aes.Engine's path costs the host the keys'
// expansion (both schedules and the GHASH powers the kernels read), more
// than crypto/cipher's whole message for short ones; the device wins only
// where its share of the work is large enough.
//
// The choice compares the measured times of the two paths (the pass and
// the AES-GCM step together, per message) for batches of the same shape:
// operation, AEAD, size class of the number of messages and of their
// mean length (powers of two). What is unknown is measured first; the
// path that lost is measured again after a while, a second at first,
// the wait doubling each time it loses again, up to a minute.

const (
	retryFirst = time.Second
	retryMost  = time.Minute
)

// aeadShape is the shape of a batch's AES-GCM step.
type aeadShape struct {
	open     bool
	aead     AEAD
	messages int // bits.Len of the number of messages
	bytes    int // bits.Len of their mean length
}

func shapeOf(open bool, aead AEAD, messages, bytes int) aeadShape {
	return aeadShape{open: open, aead: aead, messages: bits.Len(uint(messages)), bytes: bits.Len(uint(bytes / max(messages, 1)))}
}

// aeadTimes are one shape's measured times: nanoseconds per message, a
// moving average (0: not measured).
type aeadTimes struct {
	host, device float64
	engineWins   bool          // device < host, when both are known
	retry        time.Time     // when the path that lost is measured again
	wait         time.Duration // the wait after that, doubled each time
}

// aeadChoices are the Engine's measured times.
type aeadChoices struct {
	mu     sync.Mutex
	shapes map[aeadShape]*aeadTimes
}

func (c *aeadChoices) init() { c.shapes = map[aeadShape]*aeadTimes{} }

// times are the times of sh, made on first use; c.mu is held.
func (c *aeadChoices) times(sh aeadShape) *aeadTimes {
	t := c.shapes[sh]
	if t == nil {
		t = &aeadTimes{wait: retryFirst}
		c.shapes[sh] = t
	}
	return t
}

// useEngine reports whether a batch of shape sh runs its AES-GCM step on
// the aes.Engine: always under RouteDevice, never under RouteCPU or
// without one, else as measured.
func (e *Engine) useEngine(sh aeadShape) bool {
	if e.aead == nil {
		return false
	}
	switch batch.Route(e.route.Load()) {
	case batch.RouteDevice:
		return true
	case batch.RouteCPU:
		return false
	}
	c := &e.choices
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.times(sh)
	switch {
	case t.host == 0:
		return false
	case t.device == 0:
		return true
	}
	if now := time.Now(); !now.Before(t.retry) {
		t.retry = now.Add(t.wait)
		t.wait = min(2*t.wait, retryMost)
		return !t.engineWins
	}
	return t.engineWins
}

// observe records that a batch of shape sh and n messages took d on the
// path onEngine; where the other path becomes the faster, the wait
// before measuring the loser again starts over.
func (e *Engine) observe(sh aeadShape, onEngine bool, n int, d time.Duration) {
	if e.aead == nil || n == 0 {
		return
	}
	c := &e.choices
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.times(sh)
	p := &t.host
	if onEngine {
		p = &t.device
	}
	ns := float64(d.Nanoseconds()) / float64(n)
	if *p == 0 {
		*p = ns
	} else {
		*p += (ns - *p) / 4
	}
	if t.host == 0 || t.device == 0 {
		return
	}
	if wins := t.device < t.host; wins != t.engineWins || t.retry.IsZero() {
		t.engineWins = wins
		t.wait = retryFirst
		t.retry = time.Now().Add(t.wait)
	}
}
