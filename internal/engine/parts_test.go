package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The sample holds the batch's first element and about one in every of
// the others, in order, within the batch.
func TestSample(t *testing.T) {
	c := New("test", nil)
	c.SetResultCheck(10)
	ch := &Chunk{Lo: 1000, Hi: 201_000, core: c}
	sample := ch.Sample()
	require.Equal(t, 1000, sample[0])
	for k := 1; k < len(sample); k++ {
		require.Greater(t, sample[k], sample[k-1])
		require.Less(t, sample[k], 201_000)
	}
	require.InDelta(t, 20_000, len(sample), 700, "about one in 10 of 200,000 (5 standard deviations: 670)")
	c.SetResultCheck(1)
	ch = &Chunk{Lo: 5, Hi: 50, core: c}
	require.Len(t, ch.Sample(), 45, "every element")
	c.SetResultCheck(0)
	require.Empty(t, ch.Sample())
}
