package batch_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
)

func TestParallelCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 100003} {
		seen := make([]atomic.Int32, n)
		batch.Parallel(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			require.Equal(t, int32(1), seen[i].Load(), "n=%d i=%d", n, i)
		}
	}
}

func TestEach(t *testing.T) {
	odd := errors.New("odd")
	vals, err := batch.Each(9, func(i int) (string, error) {
		if i%2 == 1 {
			return "", odd
		}
		return fmt.Sprint(i), nil
	})
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.Equal(t, 4, be.Failed())
	for i, v := range vals {
		if i%2 == 1 {
			require.ErrorIs(t, be.Errs[i], odd)
			continue
		}
		require.NoError(t, be.Errs[i])
		require.Equal(t, fmt.Sprint(i), v)
	}
	_, err = batch.Each(3, func(i int) (int, error) { return i, nil })
	require.NoError(t, err)
}

func TestFallbacks(t *testing.T) {
	var f batch.Fallbacks
	var got []error
	f.OnFallback(func(err error) { got = append(got, err) })
	f.Report(errors.New("a"))
	f.Report(errors.New("b"))
	require.Equal(t, 2, f.Count())
	require.Len(t, got, 2)
	require.EqualError(t, got[1], "b")
}
