package device_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// A HostPool hands memory back out when it fits (not more than four
// times too large), rounds new allocations to powers of two, keeps at
// most a few idle allocations, and frees them when idle; copies from and
// to its memory, through the Uint32s view, round-trip.
func TestHostPool(t *testing.T) {
	d := devicetest.Device(t)
	p := d.NewHostPool(500 * time.Millisecond) // long enough that no stall between two statements frees what the next one reuses
	a, err := p.Get(1000)
	require.NoError(t, err)
	require.Len(t, a.Bytes, 1024)
	p.Put(a)
	b, err := p.Get(600)
	require.NoError(t, err)
	require.Equal(t, &a.Bytes[0], &b.Bytes[0], "an idle allocation that fits is reused")
	c, err := p.Get(100) // 1024 is more than four times too large
	require.NoError(t, err)
	require.Len(t, c.Bytes, 128)
	p.Put(b)
	p.Put(c)
	n, bytes := p.Idle()
	require.Equal(t, 2, n)
	require.Equal(t, 1024+128, bytes)

	words := device.Uint32s(b.Bytes, 200)
	require.Len(t, words, 200)
	for i := range words {
		words[i] = uint32(i) * 0x01010101
	}
	buf, err := d.NewBuffer(800)
	require.NoError(t, err)
	defer buf.Release()
	require.NoError(t, buf.Write(0, device.Uint32Bytes(words)))
	back, err := p.Get(800)
	require.NoError(t, err)
	require.NoError(t, buf.Read(0, back.Bytes[:800]))
	require.Equal(t, device.Uint32Bytes(words), back.Bytes[:800])
	p.Put(back)

	var many []*device.HostMemory
	for range 40 {
		h, err := p.Get(64)
		require.NoError(t, err)
		many = append(many, h)
	}
	for _, h := range many {
		p.Put(h)
	}
	n, _ = p.Idle()
	require.LessOrEqual(t, n, 32, "idle allocations beyond the limit are freed")
	require.Eventually(t, func() bool { n, _ := p.Idle(); return n == 0 }, 5*time.Second, 10*time.Millisecond, "idle memory is freed after the idle time")
	p.Put(nil) // nothing
	require.Nil(t, device.Uint32s(nil, 0))
}
