package batch

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// A core's requests go to one shard (the hint its pool keeps), which is
// one of the intake's: with one core, consecutive picks give the same
// shard, but for the rare collection that empties the pool between two of
// them. (Under the race detector the pool drops a quarter of its hints on
// purpose: then at least half, where random picks would give about 16 in
// 1,000.)
func TestShardHint(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var in intake[int, int]
	in.shards = make([]intakeShard[int, int], 64)
	first := in.pick()
	same := 0
	for range 1000 {
		s := in.pick()
		require.True(t, inShards(&in, s), "a shard of the intake")
		if s == first {
			same++
		}
		first = s
	}
	least := 990
	if raceEnabled {
		least = 500
	}
	require.GreaterOrEqual(t, same, least, "one core, one shard")
}

// inShards reports whether s is one of in's shards.
func inShards(in *intake[int, int], s *intakeShard[int, int]) bool {
	for i := range in.shards {
		if &in.shards[i] == s {
			return true
		}
	}
	return false
}
