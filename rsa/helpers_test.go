package rsa_test

import (
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// testEngine is one engine the tests run on. get returns it, or ends the
// (sub)test with a skip or failure when it cannot be had.
type testEngine struct {
	name string
	get  func(t testing.TB) *rsa.Engine
}

// testEngines returns the engines that every engine test runs on, each in
// its own subtest: the CPU engine, and the Engine on the test device
// (devicetest.Device: skipped without a device, failed without one under
// GPUCRYPTO_REQUIRE_DEVICE=1).

func testEngines(t testing.TB) []testEngine {
	t.Helper()
	return []testEngine{
		{"cpu", func(testing.TB) *rsa.Engine { return cpuEngine }},
		{"device", deviceEngine},
	}
}

// forEngines runs f on every engine of testEngines in a subtest.
func forEngines(t *testing.T, f func(t *testing.T, e *rsa.Engine)) {
	t.Helper()
	for _, te := range testEngines(t) {
		t.Run(te.name, func(t *testing.T) { f(t, te.get(t)) })
	}
}

var cpuEngine = rsa.CPUEngine()

var device struct {
	once     sync.Once
	e        *rsa.Engine
	err      error
	lastFall atomic.Value // error
}

// deviceEngine returns the shared Engine on the test device, its calls
// routed to the device (batch.RouteDevice: the measured routing would
// send the tests' small batches to the CPU). A device fallback during the
// calling test fails it: the tests must exercise the device, not the CPU
// behind it.
func deviceEngine(t testing.TB) *rsa.Engine {
	t.Helper()
	d := devicetest.Device(t)
	device.once.Do(func() {
		device.e, device.err = rsa.NewEngine(d)
		if device.err == nil {
			device.e.SetRoute(batch.RouteDevice)
			device.e.OnFallback(func(err error) { device.lastFall.Store(err) })
		}
	})
	if device.err != nil {
		t.Fatalf("rsa.NewEngine(%s): %v", d.Name, device.err)
	}
	e := device.e
	before := e.Stats().Fallbacks
	t.Cleanup(func() {
		if n := e.Stats().Fallbacks - before; n > 0 {
			t.Errorf("%d unexpected CPU fallbacks; last: %v", n, device.lastFall.Load())
		}
	})
	return e
}

// testKeys holds testdata/*.pem by file name (without .pem).
var testKeys = sync.OnceValues(func() (map[string]*stdrsa.PrivateKey, error) {
	paths, err := filepath.Glob("testdata/*.pem")
	if err != nil {
		return nil, err
	}
	keys := map[string]*stdrsa.PrivateKey{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		block, _ := pem.Decode(data)
		if block == nil {
			return nil, errors.New(p + ": no PEM block")
		}
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		keys[strings.TrimSuffix(filepath.Base(p), ".pem")] = k
	}
	return keys, nil
})

// key returns testdata/<name>.pem.
func key(t testing.TB, name string) *stdrsa.PrivateKey {
	t.Helper()
	keys, err := testKeys()
	require.NoError(t, err)
	k, ok := keys[name]
	require.True(t, ok, "no test key %s", name)
	return k
}

// sizes are the test keys of each size with the batch size tests use for
// them: larger keys get fewer elements (the CPU is slow on them).
var sizes = []struct {
	key string
	n   int
}{
	{"rsa1024a", 12}, {"rsa2048a", 8}, {"rsa2049", 4}, {"rsa3072", 3}, {"rsa4096", 2},
}

func randBytes(t testing.TB, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// batchError is batch.Error, for require.ErrorAs targets.
type batchError = batch.Error

// rawEncrypt returns em^e mod n as a modulus-sized string: textbook RSA,
// to build ciphertexts with chosen (bad) padding.
func rawEncrypt(pub *stdrsa.PublicKey, em []byte) []byte {
	m := new(big.Int).SetBytes(em)
	c := m.Exp(m, big.NewInt(int64(pub.E)), pub.N)
	return c.FillBytes(make([]byte, pub.Size()))
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// elementErrs returns the per-element errors of err (a *batch.Error), or n
// nils when err is nil; any other error fails the test.
func elementErrs(t testing.TB, err error, n int) []error {
	t.Helper()
	if err == nil {
		return make([]error, n)
	}
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Errs, n)
	return be.Errs
}

// asErrors turns the verdicts of a verification (Engine.VerifyPKCS1v15,
// VerifyPSS) back into crypto/rsa's errors: nil where every signature is
// valid, else a *batch.Error with ErrVerification for each refused one
// and the element's own error for the others.
func asErrors(valid []bool, err error) error {
	var per *batch.Error
	if err != nil && !errors.As(err, &per) {
		return err
	}
	errs := make([]error, len(valid))
	for i, ok := range valid {
		switch {
		case per != nil && per.Errs[i] != nil:
			errs[i] = per.Errs[i]
		case !ok:
			errs[i] = rsa.ErrVerification
		}
	}
	return batch.Collect(errs)
}
