package ecdh_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The host side of Engine batches: key decoding, result encoding,
// per-element errors, the batch inversion rule and the reuse of buffers.

// TestPutKeyMatchesDecode holds the limb-major decoder of batches to the
// byte-wise RFC 7748 decoder.
func TestPutKeyMatchesDecode(t *testing.T) {
	for _, c := range ecdh.Curves() {
		L := c.Size() / 4
		for trial := range 200 {
			k := make([]byte, c.Size())
			rand.Read(k)
			if trial < 2 {
				for j := range k {
					k[j] = 0xff * byte(trial)
				}
			}
			for _, scalar := range []bool{true, false} {
				const n, i = 5, 3
				got, want := make([]uint32, L*n), make([]uint32, L)
				ecdh.PutKey(c, k, scalar, got, i, n)
				ecdh.Decode(c, k, want, scalar)
				for j := range L {
					require.Equal(t, want[j], got[j*n+i], "%v scalar %v limb %d of %x", c, scalar, j, k)
				}
			}
		}
	}
}

// newEngine is an Engine of its own (its buffers and settings are not
// shared with other tests); the device keeps built programs, so it costs
// no compile.
func newEngine(t *testing.T) *ecdh.Engine {
	t.Helper()
	e, err := ecdh.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	e.SetRoute(batch.RouteDevice)
	t.Cleanup(func() { e.Close() })
	return e
}

func TestBatchInversionRule(t *testing.T) {
	e := newEngine(t)
	type want struct {
		c      ecdh.Curve
		shared bool
		n, k   int
	}
	auto := []want{
		{ecdh.X25519(), true, 1, 0}, {ecdh.X25519(), true, 131071, 0}, {ecdh.X25519(), true, 131072, 16}, {ecdh.X25519(), true, 1 << 20, 16},
		{ecdh.X25519(), false, 131071, 0}, {ecdh.X25519(), false, 131072, 16},
		{ecdh.X448(), false, 131071, 0}, {ecdh.X448(), false, 131072, 16},
		{ecdh.X448(), true, 131072, 0}, {ecdh.X448(), true, 262143, 0}, {ecdh.X448(), true, 262144, 16}, {ecdh.X448(), true, 524288, 16},
	}
	check := func(fixed int) {
		for _, w := range auto {
			k := w.k
			if fixed >= 0 {
				k = fixed
			}
			require.Equal(t, k, e.BatchInversionGroup(w.c, w.shared, w.n), "setting %d: %v shared %v, %d elements", fixed, w.c, w.shared, w.n)
		}
	}
	check(-1) // the default
	e.SetBatchInversion(8)
	check(8)
	e.SetBatchInversion(0)
	check(0)
	e.SetBatchInversion(ecdh.BatchInversionAuto)
	check(-1)
	e.SetBatchInversion(-7) // any negative k is the rule
	check(-1)
}

// stubKeys are benchKeys for identityStub: no random scalar starts as
// its low-order marker (EE EE EE EE after clamping, one random key in 2^29
// otherwise), since byte 1 of each is below 0x80.
func stubKeys(c ecdh.Curve, n int) (privs, peers [][]byte) {
	privs, peers = benchKeys(c, n)
	for _, p := range privs {
		p[1] &^= 0x80
	}
	return privs, peers
}

// identityStub is a device that returns the decoded scalars as results,
// and zero for the elements whose scalar starts with EE EE EE EE (so they fail
// as low-order); it records the batch inversion group it was asked for.
// Its tests take their keys from stubKeys.
func identityStub(binvs chan<- int) func(c ecdh.Curve, binv int, scal, us, res []uint32) {
	return func(c ecdh.Curve, binv int, scal, us, res []uint32) {
		if binvs != nil {
			binvs <- binv
		}
		L := c.Size() / 4
		n := len(scal) / L
		copy(res, scal)
		for i := range n {
			if scal[i] == 0xEEEEEEEE&^7 || scal[i] == 0xEEEEEEEE&^3 {
				for j := range L {
					res[j*n+i] = 0
				}
			}
		}
	}
}

// TestBatchInversionPath runs batches just below and at the thresholds of
// the rule through the Engine with the device stubbed, and checks the
// group each one used.
func TestBatchInversionPath(t *testing.T) {
	e := newEngine(t)
	binvs := make(chan int, 1)
	e.SetDeviceStub(identityStub(binvs))
	for _, tc := range []struct {
		c      ecdh.Curve
		shared bool
		n, k   int
	}{
		{ecdh.X25519(), true, 131071, 0}, {ecdh.X25519(), true, 131072, 16},
		{ecdh.X25519(), false, 131071, 0}, {ecdh.X25519(), false, 131072, 16},
		{ecdh.X448(), false, 131072, 16}, {ecdh.X448(), true, 262143, 0}, {ecdh.X448(), true, 262144, 16},
	} {
		privs, peers := stubKeys(tc.c, tc.n)
		var err error
		if tc.shared {
			_, err = e.SharedSecrets(tc.c, privs, peers)
		} else {
			_, err = e.PublicKeys(tc.c, privs)
		}
		require.NoError(t, err)
		require.Equal(t, tc.k, <-binvs, "%v shared %v, %d elements", tc.c, tc.shared, tc.n)
	}
	privs, _ := stubKeys(ecdh.X25519(), 10)
	e.SetBatchInversion(4)
	_, err := e.PublicKeys(ecdh.X25519(), privs)
	require.NoError(t, err)
	require.Equal(t, 4, <-binvs)
}

// TestHostEncoding checks the host side of large batches with the device
// stubbed: every element's result is its clamped scalar, elements with
// bad lengths and low-order results fail alone, and the idle buffers are
// zero afterwards.
func TestHostEncoding(t *testing.T) {
	e := newEngine(t)
	e.SetDeviceStub(identityStub(nil))
	for _, c := range ecdh.Curves() {
		for _, n := range []int{1, 5000, 70001} {
			t.Run(fmt.Sprintf("%v/%d", c, n), func(t *testing.T) {
				privs, peers := stubKeys(c, n)
				bad := map[int]error{}
				for _, i := range []int{0, n / 2, n - 1, 4097} {
					if i >= n || i == 0 && n == 1 {
						continue
					}
					switch i % 3 {
					case 0:
						privs[i] = privs[i][:c.Size()-1]
						bad[i] = ecdh.ErrKeyLength
					case 1:
						peers[i] = append(peers[i], 0)
						bad[i] = ecdh.ErrKeyLength
					default:
						copy(privs[i], []byte{0xEE, 0xEE, 0xEE, 0xEE})
						bad[i] = ecdh.ErrLowOrder
					}
				}
				got, err := e.SharedSecrets(c, privs, peers)
				if len(bad) == 0 {
					require.NoError(t, err)
				} else {
					var be *batch.Error
					require.True(t, errors.As(err, &be), "%v", err)
					require.Equal(t, len(bad), be.Failed())
					for i, want := range bad {
						require.ErrorIs(t, be.Errs[i], want, "element %d", i)
					}
				}
				for i := range n {
					if bad[i] != nil {
						require.Nil(t, got[i], "element %d", i)
						continue
					}
					want := clampedKey(c, privs[i])
					require.Equal(t, want, got[i], "element %d", i)
				}
				require.NoError(t, e.CheckIdleZero())
			})
		}
	}
}

func clampedKey(c ecdh.Curve, k []byte) []byte {
	out := append([]byte(nil), k...)
	if c == ecdh.X25519() {
		out[0] &= 248
		out[31] = out[31]&127 | 64
	} else {
		out[0] &= 252
		out[55] |= 128
	}
	return out
}

// TestConcurrentBatchesReuseBuffers runs batches of both curves and
// operations from several goroutines at once on one Engine (per-element
// and batch inversion), against the CPU, and checks that the Engine keeps
// a bounded number of buffer sets, all zero where they held secrets.
func TestConcurrentBatchesReuseBuffers(t *testing.T) {
	e := newEngine(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3 {
				c := ecdh.Curves()[(g+r)%2]
				n := 40 + 13*g + r
				privs, peers := benchKeys(c, n)
				peers[n/2] = make([]byte, c.Size()) // u = 0: low order
				got, gerr := e.SharedSecrets(c, privs, peers)
				want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
				if err := sameResults(want, got, werr, gerr); err != nil {
					errs <- fmt.Errorf("%v shared, %d elements: %w", c, n, err)
					return
				}
				gp, gerr := e.PublicKeys(c, privs)
				wp, werr := ecdh.CPUEngine().PublicKeys(c, privs)
				if err := sameResults(wp, gp, werr, gerr); err != nil {
					errs <- fmt.Errorf("%v public keys, %d elements: %w", c, n, err)
					return
				}
			}
		}()
		if g == 1 {
			e.SetBatchInversion(testK) // later batches invert in groups
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, e.IdleStaging(), 8) // device.HostPool's limit
	require.NoError(t, e.CheckIdleZero())
	e.ReleaseBuffers()
	require.Zero(t, e.IdleStaging())
}

func sameResults(want, got [][]byte, werr, gerr error) error {
	if (werr == nil) != (gerr == nil) {
		return fmt.Errorf("CPU error %v, device error %v", werr, gerr)
	}
	if len(want) != len(got) {
		return fmt.Errorf("%d results, want %d", len(got), len(want))
	}
	for i := range want {
		if string(want[i]) != string(got[i]) {
			return fmt.Errorf("element %d: %x, want %x", i, got[i], want[i])
		}
	}
	return nil
}

// TestIdleBuffersZero runs batches of both curves and operations one
// after another, per element and with batch inversion, and checks after
// each that the buffers the Engine keeps are zero where they held secrets.
func TestIdleBuffersZero(t *testing.T) {
	e := newEngine(t)
	for _, binv := range []int{0, testK} {
		e.SetBatchInversion(binv)
		for _, c := range ecdh.Curves() {
			for _, n := range []int{67, 10} { // the second batch reuses the first one's buffers
				privs, peers := benchKeys(c, n)
				_, err := e.SharedSecrets(c, privs, peers)
				require.NoError(t, err)
				require.NoError(t, e.CheckIdleZero(), "k %d: %v shared secrets, %d elements", binv, c, n)
				_, err = e.PublicKeys(c, privs)
				require.NoError(t, err)
				require.NoError(t, e.CheckIdleZero(), "k %d: %v public keys, %d elements", binv, c, n)
			}
		}
	}
	require.Positive(t, e.IdleStaging()) // kept, for batches of about the same size
	require.LessOrEqual(t, e.IdleStaging(), 8)
}

// With the result check on, a device that returns a wrong result is
// caught: the batch is recomputed on the CPU (right results) and the fault
// reported through OnFallback; with the check off the wrong results would
// come out (the stub's results are the clamped scalars, not shared
// secrets), so the test can fail.
func TestResultCheck(t *testing.T) {
	e := newEngine(t)
	e.SetDeviceStub(identityStub(nil))
	var reported []error
	e.OnFallback(func(err error) { reported = append(reported, err) })
	for _, c := range ecdh.Curves() {
		privs, peers := stubKeys(c, 9)
		want, err := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
		require.NoError(t, err)
		e.SetResultCheck(0)
		got, err := e.SharedSecrets(c, privs, peers)
		require.NoError(t, err)
		require.NotEqual(t, want, got, "the stub's results are not shared secrets")
		for _, every := range []int{1, 1000} { // 1000: the first element is always checked
			e.SetResultCheck(every)
			before := len(reported)
			got, err = e.SharedSecrets(c, privs, peers)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s, every %d", c, every)
			require.Len(t, reported, before+1)
			require.ErrorContains(t, reported[before], "differs from the CPU's (result check)")
		}
		pubs, err := e.PublicKeys(c, privs)
		require.NoError(t, err)
		wantPubs, err := ecdh.CPUEngine().PublicKeys(c, privs)
		require.NoError(t, err)
		require.Equal(t, wantPubs, pubs)
	}
	e.SetResultCheck(0)
}

// On a working device the check finds nothing: every result of a batch
// checked, no fallback (the test engine panics on one).
func TestResultCheckDevice(t *testing.T) {
	e, err := ecdh.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.ReleaseBuffers()
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	e.SetResultCheck(1)
	for _, c := range ecdh.Curves() {
		privs, peers := benchKeys(c, 17)
		peers[3] = ecdh.EdgeU(c)[0] // a low-order peer fails alone, as without the check
		got, gerr := e.SharedSecrets(c, privs, peers)
		want, werr := ecdh.CPUEngine().SharedSecrets(c, privs, peers)
		requireSameErrors(t, werr, gerr, len(privs))
		require.Equal(t, want, got)
		pubs, err := e.PublicKeys(c, privs)
		require.NoError(t, err)
		wantPubs, err := ecdh.CPUEngine().PublicKeys(c, privs)
		require.NoError(t, err)
		require.Equal(t, wantPubs, pubs)
	}
	require.Zero(t, int(e.Stats().Fallbacks))
}
