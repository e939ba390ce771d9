package batch

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// cpuPool runs the asynchronous requests of the CPU path (Go on a
// Batcher with a CPU path, and on a Direct one) on goroutines that
// outlive them. A goroutine started for each request begins with a small
// stack, and crypto/*'s private-key operations need several kilobytes of
// it: each such goroutine grew and copied its stack again, work that
// the same number of goroutines looping over crypto/* does once. A pool
// goroutine keeps its grown stack for the next request.
//
// A request is handed to a goroutine waiting for one, or else to a new
// one. A goroutine that finishes its request waits for the next while
// fewer than keep others wait; beyond that it ends, so a burst leaves
// no more idle goroutines behind than the host has cores.
//
// A waiting goroutine receives on tasks alone, and close closes it: a
// select over tasks and a second channel for the end locked both
// channels at every wait, and with a goroutine of the pool on each core
// those locks left cores idle while their threads slept on them.
type cpuPool struct {
	tasks   chan func()  // unbuffered: a send succeeds where a goroutine waits; closed by close
	waiting atomic.Int32 // goroutines waiting on tasks
	keep    int32
	running sync.WaitGroup // the pool's goroutines
}

// init makes the pool ready, keeping as many waiting goroutines as
// GOMAXPROCS.
func (p *cpuPool) init() {
	p.tasks = make(chan func())
	p.keep = int32(runtime.GOMAXPROCS(0))
}

// run computes f on a goroutine of the pool. It must not be called after
// close.
func (p *cpuPool) run(f func()) {
	select {
	case p.tasks <- f:
	default:
		p.running.Add(1)
		go p.loop(f)
	}
}

// loop is a goroutine of the pool: f, then the requests handed to it,
// until more than keep others wait or the pool is closed.
func (p *cpuPool) loop(f func()) {
	defer p.running.Done()
	for {
		f()
		f = nil // the request's references (its keys, its Completer) go with it
		if p.waiting.Add(1) > p.keep {
			p.waiting.Add(-1)
			return
		}
		var open bool
		f, open = <-p.tasks
		p.waiting.Add(-1)
		if !open {
			return
		}
	}
}

// close ends the pool's goroutines once their requests are done (called
// once, after the last run: a goroutine's request ends before it does,
// so wait also waits for every request).
func (p *cpuPool) close() { close(p.tasks) }

// wait waits for the pool's goroutines to end, after close.
func (p *cpuPool) wait() { p.running.Wait() }
