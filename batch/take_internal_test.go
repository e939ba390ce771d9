package batch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A take starts where the last one stopped: the requests left in a shard
// taken in part, and those in the shards it did not reach, go before
// the requests that arrived since in the shards it emptied. Within each
// shard the requests go in the order they came.
func TestTakeResumes(t *testing.T) {
	var in intake[int, int]
	in.init()
	shards := len(in.shards)
	next := 0
	putAll := func(into func(k int) bool) (put []int) {
		for k := range shards {
			if !into(k) {
				continue
			}
			for range 2 {
				_, err := in.shards[k].put(item[int, int]{req: next})
				require.NoError(t, err)
				put = append(put, next)
				next++
			}
		}
		return put
	}
	old := putAll(func(int) bool { return true })
	first, _ := in.take(nil, shards+1, nil) // half the shards and one more request
	require.Len(t, first, shards+1)
	emptied := map[int]bool{}
	for k := range shards {
		if in.shards[k].count.Load() == 0 {
			emptied[k] = true
		}
	}
	require.Len(t, emptied, shards/2)
	newer := putAll(func(k int) bool { return emptied[k] })
	second, _ := in.take(nil, len(old)-len(first), nil)
	taken := map[int]bool{}
	for _, it := range append(first, second...) {
		require.False(t, taken[it.req], "request %d taken twice", it.req)
		taken[it.req] = true
	}
	for _, r := range old {
		require.True(t, taken[r], "request %d, older than every request of the second take, waits", r)
	}
	require.Len(t, taken, len(old))
	third, _ := in.take(nil, len(newer), nil)
	require.Len(t, third, len(newer), "then the newer ones")
	for i := 1; i < len(third); i++ {
		if third[i].req/2 == third[i-1].req/2 { // the two requests of one shard
			require.Less(t, third[i-1].req, third[i].req, "a shard's requests in the order they came")
		}
	}
	require.Zero(t, in.waiting())
}
