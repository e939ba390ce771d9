package batch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// tokens reports which of ws hold a token (and takes them).
func tokens(ws []*roomWaiter) []int {
	var got []int
	for i, w := range ws {
		select {
		case <-w.ready:
			got = append(got, i)
		default:
		}
	}
	return got
}

// The callers waiting for room in a shard are woken as many as a take
// took requests from it, first come first served; one woken in vain goes
// back first; one that leaves while queued is skipped, and one that gives
// up after it was dequeued passes its turn on; close wakes them all.
func TestRoomWaiters(t *testing.T) {
	var in intake[int, int]
	in.init()
	s := &in.shards[0]
	const limit = 1 // one request in s fills the queue
	enqueue := func(w *roomWaiter, head bool) bool {
		queued, err := s.enqueue(w, head, &in, limit)
		require.NoError(t, err)
		return queued
	}
	take := func(n int) []*roomWaiter {
		_, woken := in.take(nil, n, nil)
		return woken
	}
	require.False(t, enqueue(in.waiter(), false), "room: not queued")
	for i := range 10 {
		_, err := s.put(item[int, int]{req: i})
		require.NoError(t, err)
	}
	ws := make([]*roomWaiter, 6)
	for i := range ws {
		ws[i] = in.waiter()
		require.True(t, enqueue(ws[i], false))
	}

	require.Equal(t, []*roomWaiter{ws[0], ws[1]}, take(2), "as many as taken, the first")
	require.Empty(t, wake([]*roomWaiter{ws[0], ws[1]}))
	require.Equal(t, []int{0, 1}, tokens(ws))

	require.True(t, enqueue(ws[1], true)) // woken in vain: first again
	s.leave(ws[2])                        // leaves while queued: no token
	require.Equal(t, []*roomWaiter{ws[1]}, take(1))

	wake(take(1))  // ws[3]'s turn
	s.leave(ws[3]) // it gives up: ws[4] gets the turn
	require.Equal(t, []int{4}, tokens(ws))

	require.Equal(t, []*roomWaiter{ws[5]}, take(10))
	require.Nil(t, s.head)
	require.Nil(t, s.tail)

	_, err := s.put(item[int, int]{})
	require.NoError(t, err)
	require.True(t, enqueue(ws[0], false))
	in.close()
	require.Equal(t, []int{0}, tokens(ws), "close wakes them")
	_, err = s.enqueue(ws[0], false, &in, limit)
	require.ErrorIs(t, err, ErrClosed)
}

// The first look of a put takes the intake's total from a recent sum
// (roughlyFull); a sum that reads full where the queue has room does not
// make a caller wait: the queueing sums the shards again, and a caller
// waits only on the exact count. An old sum is renewed.
func TestRoughlyFullAskedAgain(t *testing.T) {
	var in intake[int, int]
	in.init()
	s := &in.shards[0]
	limit := int64(roughLimit)
	share := int(in.share(limit))
	for i := range share {
		_, err := s.put(item[int, int]{req: i})
		require.NoError(t, err)
	}
	now := stampNow()
	in.noteWaiting(limit, now) // a recent sum that reads full
	require.True(t, in.roughlyFull(s, limit, now))
	require.False(t, in.full(s, limit), "the shards hold %d against a limit of %d", share, limit)
	queued, err := s.enqueue(in.waiter(), false, &in, limit)
	require.NoError(t, err)
	require.False(t, queued, "room: not queued")

	later := now + sumFresh
	require.False(t, in.roughlyFull(s, limit, later), "an old sum is made again")
	require.Equal(t, int64(share), in.recentWaiting(later))
}

// Under a limit of a few dozen the first look sums the shards: a recent
// sum that reads empty does not let a burst past the limit.
func TestRoughlyFullExactForSmallLimits(t *testing.T) {
	var in intake[int, int]
	in.init()
	s := &in.shards[0]
	limit := int64(len(in.shards)) // a share of 1 a shard
	for i := range limit {
		_, err := in.shards[int(i)%len(in.shards)].put(item[int, int]{req: int(i)})
		require.NoError(t, err)
	}
	in.noteWaiting(0, stampNow()) // a recent sum from before the burst
	require.True(t, in.roughlyFull(s, limit, stampNow()), "%d waiting against a limit of %d", limit, limit)
}
