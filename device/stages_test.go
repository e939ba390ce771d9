package device_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// scaleStages is the test device's scale kernel, Stages and a Pool, both
// released when the test ends.
func scaleStages(t *testing.T) (*device.Kernel, *device.Stages, *device.Pool) {
	d := devicetest.Device(t)
	p, err := d.Program(source("scale", scaleSrc, nil))
	require.NoError(t, err)
	k, err := p.Kernel("scale")
	require.NoError(t, err)
	st, err := d.NewStages()
	require.NoError(t, err)
	t.Cleanup(func() { st.Release() })
	pool := d.NewPool(0)
	t.Cleanup(pool.Drain)
	return k, st, pool
}

// A batch read back in parts: ReadDone runs once per read-back, in order,
// and each part's bytes are there when it runs.
func TestStagesReadDone(t *testing.T) {
	k, st, pool := scaleStages(t)

	const n = 3000
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(7 * i)
	}
	want := func(i int) uint32 { return in[i]*3 + uint32(i) }
	out := make([]uint32, n)
	bounds := []int{0, 1000, 1001, n} // a part of one element among them
	var done []int
	_, err := st.Run(pool, func(c *device.Commands) error {
		buf, err := c.Upload(in, false)
		if err != nil {
			return err
		}
		if err := c.Launch(k, n, 64, buf, uint32(3), uint32(n)); err != nil {
			return err
		}
		for part := range len(bounds) - 1 {
			lo, hi := bounds[part], bounds[part+1]
			if err := c.ReadAt(buf, 4*lo, device.Uint32Bytes(out[lo:hi])); err != nil {
				return err
			}
		}
		c.ReadDone = func(part int) {
			done = append(done, part)
			for i := bounds[part]; i < bounds[part+1]; i++ {
				if out[i] != want(i) {
					t.Errorf("part %d, element %d: %d, want %d when ReadDone runs", part, i, out[i], want(i))
					return
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2}, done)
}

// Batches through Stages from many goroutines: each gets its own results
// (uploads, kernel and read-back keep their order across the three
// queues), its kernel time, and leaves only zeroed buffers in the pool; a
// batch whose enqueue fails returns the error and keeps nothing.
func TestStages(t *testing.T) {
	k, st, pool := scaleStages(t)

	const batches, n = 16, 4099
	var wg sync.WaitGroup
	for g := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := make([]uint32, n)
			for i := range in {
				in[i] = uint32(g*n + i)
			}
			out := make([]uint32, n)
			uploaded := false
			dur, err := st.Run(pool, func(c *device.Commands) error {
				c.Uploaded = func() { uploaded = true }
				buf, err := c.Upload(in, true)
				if err != nil {
					return err
				}
				if err := c.Launch(k, n, 64, buf, uint32(g+2), uint32(n)); err != nil {
					return err
				}
				return c.Read(buf, device.Uint32Bytes(out))
			})
			if err != nil {
				t.Errorf("batch %d: %v", g, err)
				return
			}
			if !uploaded {
				t.Errorf("batch %d: Uploaded not called", g)
			}
			if dur <= 0 {
				t.Errorf("batch %d: kernel time %v", g, dur)
			}
			for i, v := range out {
				if want := in[i]*uint32(g+2) + uint32(i); v != want {
					t.Errorf("batch %d, element %d: %d, want %d", g, i, v, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	idle, err := pool.IdleContents()
	require.NoError(t, err)
	require.NotEmpty(t, idle)
	for _, b := range idle {
		for i, c := range b {
			require.Zero(t, c, "byte %d of an idle buffer", i)
		}
	}

	// a failed enqueue: its error, and its buffers are not kept
	count, _ := pool.Idle()
	bad := errors.New("enqueue failed")
	_, err = st.Run(pool, func(c *device.Commands) error {
		if _, err := c.Upload(make([]uint32, 64), true); err != nil {
			return err
		}
		return bad
	})
	require.ErrorIs(t, err, bad)
	after, _ := pool.Idle()
	require.LessOrEqual(t, after, count)

	// uploads alone (no kernel, no read-back): the zeroing still follows them
	_, err = st.Run(pool, func(c *device.Commands) error {
		_, err := c.Upload([]uint32{1, 2, 3, 4}, true)
		return err
	})
	require.NoError(t, err)
	idle, err = pool.IdleContents()
	require.NoError(t, err)
	for _, b := range idle {
		for i, c := range b {
			require.Zero(t, c, "byte %d of an idle buffer", i)
		}
	}
}

// A panic in a batch's enqueue, after it enqueued an upload and a kernel,
// is that batch's error: Run waits for what was enqueued, and the next
// batch on the same Stages runs (the lock is not left held, and nothing
// is released under a running copy).
func TestStagesEnqueuePanic(t *testing.T) {
	k, st, pool := scaleStages(t)

	const n = 1024
	in := make([]uint32, n)
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("the panic left Run: %v", p)
			}
		}()
		_, err = st.Run(pool, func(c *device.Commands) error {
			buf, err := c.Upload(in, true)
			if err != nil {
				return err
			}
			if err := c.Launch(k, n, 64, buf, uint32(3), uint32(n)); err != nil {
				return err
			}
			panic("a bug in the enqueue")
		})
		return err
	}()
	require.ErrorContains(t, err, "enqueue panicked: a bug in the enqueue")

	out := make([]uint32, n)
	done := make(chan error, 1)
	go func() {
		_, err := st.Run(pool, func(c *device.Commands) error {
			buf, err := c.Upload(in, false)
			if err != nil {
				return err
			}
			if err := c.Launch(k, n, 64, buf, uint32(3), uint32(n)); err != nil {
				return err
			}
			return c.Read(buf, device.Uint32Bytes(out))
		})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the batch after a panicking enqueue is still blocked after a minute")
	}
	for i, v := range out {
		require.Equal(t, uint32(i), v, "element %d", i)
	}
}
