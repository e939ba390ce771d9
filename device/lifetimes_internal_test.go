package device

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// lifetimeDevice is the test device (Any's, as devicetest's), or the test
// is skipped (failed where a device is required, as devicetest does; that
// package imports this one).
func lifetimeDevice(t *testing.T) *Device {
	t.Helper()
	d, err := Any()
	if err != nil {
		if os.Getenv("GPUCRYPTO_REQUIRE_DEVICE") == "1" {
			t.Fatalf("no device: %v", err)
		}
		t.Skipf("no device: %v", err)
	}
	return d
}

// Every copy and fill keeps its device buffer alive until it completes:
// without that, a Buffer dropped right after an asynchronous copy could be
// freed by its finalizer under the copy.
func TestEventsKeepBuffers(t *testing.T) {
	d := lifetimeDevice(t)
	q, err := d.Queue()
	require.NoError(t, err)
	b, err := d.NewBuffer(64)
	require.NoError(t, err)
	defer b.Release()
	host := make([]byte, 64)

	write, err := q.Write(b, 0, host)
	require.NoError(t, err)
	read, err := q.Read(b, 0, host)
	require.NoError(t, err)
	fill, err := q.Fill(b, []byte{0, 0, 0, 0}, 0, 64)
	require.NoError(t, err)
	for name, ev := range map[string]*Event{"write": write, "read": read, "fill": fill} {
		ev.mu.Lock()
		kept := ev.buffers
		ev.mu.Unlock()
		require.True(t, slices.Contains(kept, b), "the %s's event does not keep its buffer", name)
		require.NoError(t, ev.Release())
		require.Empty(t, ev.buffers, "the %s's event keeps its buffer after completing", name)
	}
}

// Release leaves no pointer into the zero host memory it frees.
func TestStagesReleaseForgetsZeros(t *testing.T) {
	d := lifetimeDevice(t)
	st, err := d.NewStages()
	require.NoError(t, err)
	pool := d.NewPool(0)
	defer pool.Drain()
	out := make([]byte, 256)
	_, err = st.Run(pool, func(c *Commands) error {
		b, err := c.Upload(make([]uint32, 64), true)
		if err != nil {
			return err
		}
		return c.Read(b, out) // a secret buffer's read-back: scrubbed from the zero memory
	})
	require.NoError(t, err)
	require.True(t, st.zeros != nil, "the scrub did not use the zero memory")
	require.NoError(t, st.Release())
	require.True(t, st.zeros == nil, "Release left the zero memory's slice behind")
	require.True(t, st.zerosMem == nil, "Release left the zero memory behind")
}
