package batch

import (
	"math/rand/v2"
	"sync/atomic"
)

// counter is a sum that goroutines on many cores add to without sharing
// a cache line: each add goes to a shard at random, a read sums them.
type counter struct {
	shards [counterShards]struct {
		v atomic.Int64
		_ [56]byte
	}
}

const counterShards = 8

func (c *counter) add(n int64) { c.shards[rand.Uint32()%counterShards].v.Add(n) }

func (c *counter) load() int64 {
	var sum int64
	for i := range c.shards {
		sum += c.shards[i].v.Load()
	}
	return sum
}
