package batch

import (
	"sync/atomic"
	"unsafe"
)

// counter is a sum that goroutines on many cores add to without sharing
// a cache line: each add goes to the calling goroutine's shard
// (stackShard), a read sums them. A goroutine that adds again meets the
// line it wrote last, where a shard drawn at random would most often be
// one that another core wrote.
type counter struct {
	shards [counterShards]struct {
		v atomic.Int64
		_ [56]byte
	}
}

const (
	counterShardBits = 5
	counterShards    = 1 << counterShardBits
)

func (c *counter) add(n int64) { c.shards[stackShard(counterShardBits)].v.Add(n) }

func (c *counter) load() int64 {
	var sum int64
	for i := range c.shards {
		sum += c.shards[i].v.Load()
	}
	return sum
}

// stackShard picks one of 1<<bits shards by the calling goroutine's
// stack: the same one for the same goroutine while its stack stays where
// it is. A goroutine's stack spans a few kilobytes: its address's bits
// above them, mixed (Fibonacci hashing), pick the shard.
func stackShard(bits uint) uint64 {
	var here byte
	addr := uint64(uintptr(unsafe.Pointer(&here)))
	return (addr >> 12) * 0x9e3779b97f4a7c15 >> (64 - bits)
}
