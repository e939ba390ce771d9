package device

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// failingEvent is a command whose wait fails (a driver that reports a
// failure of the queue while the command may still run).
type failingEvent struct{}

func (failingEvent) wait() error                      { return errors.New("wait failed") }
func (failingEvent) duration() (time.Duration, error) { return 0, nil }
func (failingEvent) release() error                   { return nil }

// finishQueue is a queue whose finish succeeds or fails, counted.
type finishQueue struct {
	driverQueue // the other methods: not called
	err         error
	finishes    atomic.Int64
}

func (q *finishQueue) finish() error {
	q.finishes.Add(1)
	return q.err
}

// countedBuffer is device memory that counts its releases.
type countedBuffer struct{ releases atomic.Int64 }

func (b *countedBuffer) size() int      { return 64 }
func (b *countedBuffer) release() error { b.releases.Add(1); return nil }

// After a failed wait the command's queue is finished: once that has
// succeeded, the command is surely over, and its host memory and buffers
// are let go as after any wait.
func TestFailedWaitFinishesTheQueue(t *testing.T) {
	q := &finishQueue{}
	host := make([]byte, 64)
	db := &countedBuffer{}
	b := &Buffer{b: db, size: 64}
	e := newEvent(failingEvent{}, q, host, b)
	require.Error(t, e.Wait())
	require.Equal(t, int64(1), q.finishes.Load(), "the queue was not finished after the failed wait")
	require.Nil(t, e.keep)
	require.False(t, stranded.holds(host))
	require.NoError(t, b.Release())
	require.Equal(t, int64(1), db.releases.Load())
	require.Error(t, e.Release(), "Release reports the failed wait")
}

// After a failed wait on a queue that cannot be finished either, the
// command may still copy into its host memory or use its buffers: they
// are stranded, never handed out again nor freed (HostPool.Put, Pool.put,
// HostMemory.Free, Buffer.Release), and no command uses the buffer again.
func TestFailedWaitStrands(t *testing.T) {
	q := &finishQueue{err: errors.New("finish failed")}
	mem := &HostMemory{Bytes: make([]byte, 256)}
	for i := range mem.Bytes {
		mem.Bytes[i] = 0x5a
	}
	copied := mem.Bytes[64:128] // a copy of part of a staging allocation
	db := &countedBuffer{}
	b := &Buffer{b: db, size: 64}
	e := newEvent(failingEvent{}, q, copied, b)
	require.Error(t, e.Wait())
	require.Equal(t, int64(1), q.finishes.Load())
	require.True(t, stranded.holds(copied))
	require.True(t, stranded.holds(mem.Bytes), "the allocation around the copy's memory")
	require.False(t, stranded.holds(make([]byte, 64)))

	hosts := (&Device{}).NewHostPool(0)
	hosts.Put(mem)
	n, _ := hosts.Idle()
	require.Zero(t, n, "stranded host memory went back to the pool")
	require.ErrorIs(t, mem.Free(), errStrandedHost)
	require.NotNil(t, mem.Bytes, "Free let go of stranded memory")
	require.Equal(t, byte(0x5a), mem.Bytes[100], "Free wrote into stranded memory")

	pool := (&Device{}).NewPool(0)
	pool.put([]*Buffer{b})
	n, _ = pool.Idle()
	require.Zero(t, n, "a stranded buffer went back to the pool")
	require.ErrorIs(t, b.Release(), errStrandedBuffer)
	require.Zero(t, db.releases.Load(), "a stranded buffer was freed")
	_, err := b.handle("Write", 0, 4)
	require.ErrorIs(t, err, errStrandedBuffer)
	require.Error(t, e.Release(), "Release reports the failed wait")
}

// IdleContents hands out copies: the idle memory may be freed (and its
// bytes zeroed and, pinned, unmapped) at any time after it returns.
func TestIdleContentsCopies(t *testing.T) {
	hosts := (&Device{}).NewHostPool(0)
	mem := &HostMemory{Bytes: []byte{1, 2, 3, 4}}
	hosts.Put(mem)
	idle := hosts.IdleContents()
	hosts.Drain()
	require.Nil(t, mem.Bytes, "drained")
	require.Equal(t, [][]byte{{1, 2, 3, 4}}, idle, "the contents were read from memory freed after")
}
