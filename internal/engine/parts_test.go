package engine

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// Errors make their slice at the first error only, and then give
// batch.Collect's error of every element's.
func TestErrors(t *testing.T) {
	e := NewErrors(1000)
	var wg sync.WaitGroup
	for k := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 100 * k; i < 100*(k+1); i++ {
				e.Set(i, nil)
			}
		}()
	}
	wg.Wait()
	require.Nil(t, e.slice(), "no error: no slice")
	require.NoError(t, e.Err())
	bad := errors.New("bad")
	for k := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 100 * k; i < 100*(k+1); i++ {
				if i%7 == 3 {
					e.Set(i, bad)
				}
			}
		}()
	}
	wg.Wait()
	e.Set(3, nil) // cleared again
	var be *batch.Error
	require.ErrorAs(t, e.Err(), &be)
	require.Len(t, be.Errs, 1000)
	for i, err := range be.Errs {
		if i%7 == 3 && i != 3 {
			require.Equal(t, bad, err, "element %d", i)
			require.Equal(t, bad, e.Get(i))
		} else {
			require.NoError(t, err, "element %d", i)
		}
	}
}

// A Later value is the one made, for every caller.
func TestLater(t *testing.T) {
	release := make(chan struct{})
	l := MakeLater(func() []int { <-release; return []int{1, 2, 3} })
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.Equal(t, []int{1, 2, 3}, l.Get())
		}()
	}
	close(release)
	wg.Wait()
	require.Equal(t, []int{1, 2, 3}, l.Get())
}

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
	require.InDelta(t, 20_000, len(sample), 900, "about one in 10 of 200,000 (6.7 standard deviations of 134: a false failure about once in 10^10 runs)")
	c.SetResultCheck(1)
	ch = &Chunk{Lo: 5, Hi: 50, core: c}
	require.Len(t, ch.Sample(), 45, "every element")
	c.SetResultCheck(0)
	require.Empty(t, ch.Sample())
}

// publicJob fills its batch's staging memory with 0xff and marks its
// second half public.
type publicJob struct{}

func (publicJob) Device(ch *Chunk) error {
	b, err := ch.Staging(1 << 16)
	if err != nil {
		return err
	}
	for i := range b {
		b[i] = 0xff
	}
	ch.Public(b[len(b)/2:])
	return nil
}

func (publicJob) CPU(lo, hi int) {}

// release zeroes a batch's staging memory but for what the job marked
// public.
func TestReleasePublic(t *testing.T) {
	c := New("test", devicetest.Device(t))
	defer c.Close()
	c.SetRoute(batch.RouteDevice)
	c.OnFallback(func(err error) { t.Fatal(err) })
	require.NoError(t, c.Run(Plan{Op: "public", N: 1}, publicJob{}))
	idle := c.staging.IdleContents()
	require.Len(t, idle, 1)
	half := 1 << 15
	require.True(t, bytes.Equal(idle[0][:half], make([]byte, half)), "the first half zeroed")
	require.True(t, bytes.Equal(idle[0][half:2*half], bytes.Repeat([]byte{0xff}, half)), "the public half left")
}

// touchPages writes an element of every page of the slice, and its last
// element (for slices of elements smaller than a page, of one page and
// more, and of no size).
func TestTouchPages(t *testing.T) {
	page := os.Getpagesize()
	check := func(t *testing.T, n, size int, touched func(i int) bool) {
		require.True(t, touched(n-1), "the last element")
		last := -1
		for i := range n {
			if touched(i) {
				require.LessOrEqual(t, i-last, max(page/size, 1), "elements %d to %d untouched", last+1, i-1)
				last = i
			}
		}
	}
	for _, n := range []int{1, 2, 511, 512, 513, 100_000} {
		words := make([]uint64, n)
		for i := range words {
			words[i] = 1
		}
		touchPages(words)
		check(t, n, 8, func(i int) bool { return words[i] == 0 })
		big := make([][5000]byte, n%600)
		for i := range big {
			big[i][0] = 1
		}
		touchPages(big)
		if len(big) > 0 {
			check(t, len(big), 5000, func(i int) bool { return big[i][0] == 0 })
		}
	}
	touchPages(make([]struct{}, 10))
	touchPages([]uint64(nil))
}
