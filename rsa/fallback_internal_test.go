package rsa

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/cl"
)

// fakeDevice stands for a device backend that misbehaves in one way.
type fakeDevice struct {
	mode  string
	mu    sync.Mutex
	calls int
	cpu   cpuBackend
}

func (f *fakeDevice) String() string { return "fake device" }

// answer computes the call on the CPU, then misbehaves: out holds the
// results, n elements.
func (f *fakeDevice) answer(out [][]byte, err error) error {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	switch f.mode {
	case "fail":
		out[0][0] ^= 0xff // a failed call's results are not used
		return &cl.Error{Call: "clEnqueueNDRangeKernel", Status: cl.OutOfResources}
	case "short errors":
		return &batch.Error{Errs: make([]error, len(out)+1)}
	case "panic":
		panic("kernel exploded")
	case "fault":
		errs := make([]error, len(out))
		errs[0] = ErrFault
		out[0][0] ^= 0xff // a failed element's result is not used
		return &batch.Error{Errs: errs}
	}
	return err
}

func (f *fakeDevice) private(keys []*privateKey, in, out [][]byte) error {
	return f.answer(out, f.cpu.private(keys, in, out))
}

func (f *fakeDevice) public(keys []*publicKey, in, out [][]byte) error {
	return f.answer(out, f.cpu.public(keys, in, out))
}

func loadKey(t testing.TB, name string) *stdrsa.PrivateKey {
	data, err := os.ReadFile("testdata/" + name + ".pem")
	require.NoError(t, err)
	b, _ := pem.Decode(data)
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	require.NoError(t, err)
	return k
}

// A device that fails a whole call sends it to the CPU, once per size
// class, and reports each failure; per-element device errors are kept.
func TestFallback(t *testing.T) {
	k1, k2 := loadKey(t, "rsa1024a"), loadKey(t, "rsa2048a")
	keys := []*stdrsa.PrivateKey{k1, k2, k1, k2}
	pubs := []*stdrsa.PublicKey{&k1.PublicKey, &k2.PublicKey, &k1.PublicKey, &k2.PublicKey}
	digests := make([][]byte, len(keys))
	for i := range digests {
		digests[i] = make([]byte, 32)
		rand.Read(digests[i])
	}
	want, err := CPUEngine().SignPKCS1v15(keys, crypto.SHA256, digests)
	require.NoError(t, err)

	for _, mode := range []string{"fail", "short errors", "panic"} {
		t.Run(mode, func(t *testing.T) {
			f := &fakeDevice{mode: mode}
			e := &Engine{be: f, cpu: &cpuBackend{}}
			var reported []error
			e.OnFallback(func(err error) { reported = append(reported, err) })
			for _, blind := range []bool{false, true} {
				e.SetBlinding(blind)
				got, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
				require.NoError(t, err)
				require.Equal(t, want, got)
			}
			require.NoError(t, e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, want))
			require.Equal(t, 6, f.calls) // 3 batches × 2 size classes
			require.Equal(t, 6, e.Fallbacks())
			require.Len(t, reported, 6)
			require.ErrorContains(t, reported[0], "fake device failed, batch recomputed on the CPU")
			if mode == "fail" {
				require.ErrorContains(t, reported[0], "CL_OUT_OF_RESOURCES")
				var ce *cl.Error
				require.ErrorAs(t, reported[0], &ce)
			}
			if mode == "panic" {
				require.ErrorContains(t, reported[0], "kernel exploded")
			}
		})
	}

	for _, mode := range []string{"fault"} {
		t.Run(mode, func(t *testing.T) {
			f := &fakeDevice{mode: mode}
			e := &Engine{be: f, cpu: &cpuBackend{}}
			e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
			got, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
			var be *batch.Error
			require.True(t, errors.As(err, &be))
			require.Equal(t, 2, be.Failed()) // element 0 of each size class
			require.ErrorIs(t, be.Errs[0], ErrFault)
			require.Nil(t, got[0])
			require.Nil(t, got[1])
			require.Equal(t, want[2:], got[2:])
			require.Zero(t, e.Fallbacks())
		})
	}
}

// The default fallback report goes to the log.
func TestFallbackDefaultReport(t *testing.T) {
	k := loadKey(t, "rsa1024a")
	e := &Engine{be: &fakeDevice{mode: "fail"}, cpu: &cpuBackend{}}
	d := make([]byte, 32)
	_, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{d})
	require.NoError(t, err)
	require.Equal(t, 1, e.Fallbacks())
	require.Equal(t, "fake device", e.String())
}

// With blinding, the unblinded result is checked again: a corrupted
// blinding pair gives ErrFault, never a value.
func TestBlindingRecheck(t *testing.T) {
	k := loadKey(t, "rsa1024a")
	entry, err := preparePrivate(k)
	require.NoError(t, err)
	two := make([]byte, modBytes(entry.pub))
	two[len(two)-1] = 2
	_, _, err = entry.blind.blind(entry.pub, two) // initialise the pair
	require.NoError(t, err)
	c, err := entry.pub.constantTime()
	require.NoError(t, err)
	one, err := nat(bigOne.FillBytes(make([]byte, c.n.Size())), c.n)
	require.NoError(t, err)
	entry.blind.mu.Lock()
	entry.blind.rinv.Add(one, c.n) // no longer r^-1
	entry.blind.mu.Unlock()
	e := CPUEngine()
	e.SetBlinding(true)
	sigs, err := e.SignPKCS1v15([]*stdrsa.PrivateKey{k}, crypto.SHA256, [][]byte{make([]byte, 32)})
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, be.Errs[0], ErrFault)
	require.Nil(t, sigs[0])
}
