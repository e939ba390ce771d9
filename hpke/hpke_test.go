//go:build go1.26

package hpke_test

import (
	"bytes"
	stdecdh "crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/hpke"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// deviceEngine is the test device's engine (devicetest.Engine): every
// step computes on the device (AES-GCM on the host where aes refuses the
// device, PoCL's), and a fallback to the CPU fails the test.
func deviceEngine(t testing.TB) *hpke.Engine {
	t.Helper()
	return devicetest.Engine(t, hpke.NewEngine)
}

// engines are checked side by side: the device's, the CPU engine, and a
// CPU engine whose AES-GCM runs on an aes.Engine (the path of aes.Key per
// message that a GPU engine takes where it measured it faster).
func engines(t *testing.T) map[string]*hpke.Engine {
	withAES := hpke.CPUEngine()
	hpke.UseAESEngine(withAES, aes.CPUEngine())
	t.Cleanup(func() { withAES.Close() })
	return map[string]*hpke.Engine{"device": deviceEngine(t), "cpu": hpke.CPUEngine(), "aes-engine": withAES}
}

// suite is one cipher suite as the tests drive it: ours and
// crypto/hpke's.
type suite struct {
	s    hpke.Suite
	kem  stdhpke.KEM
	aead stdhpke.AEAD
}

func (s suite) String() string { return s.s.String() }

func suites() []suite {
	var out []suite
	for _, k := range []struct {
		ours hpke.KEM
		std  stdhpke.KEM
	}{{hpke.MLKEM768X25519, stdhpke.MLKEM768X25519()}, {hpke.MLKEM768, stdhpke.MLKEM768()}, {hpke.DHKEMX25519, stdhpke.DHKEM(stdecdh.X25519())}} {
		for _, a := range []struct {
			ours hpke.AEAD
			std  stdhpke.AEAD
		}{{hpke.AES128GCM, stdhpke.AES128GCM()}, {hpke.AES256GCM, stdhpke.AES256GCM()}} {
			out = append(out, suite{hpke.Suite{KEM: k.ours, KDF: hpke.HKDFSHA256, AEAD: a.ours}, k.std, a.std})
		}
	}
	return out
}

// keyPair is a recipient's key, crypto/hpke's and ours (from its bytes).
type keyPair struct {
	std     stdhpke.PrivateKey
	ours    *hpke.PrivateKey
	stdPub  stdhpke.PublicKey
	oursPub *hpke.PublicKey
}

func newKeyPair(t testing.TB, s suite) keyPair {
	t.Helper()
	std, err := s.kem.GenerateKey()
	require.NoError(t, err)
	b, err := std.Bytes()
	require.NoError(t, err)
	ours, err := hpke.NewPrivateKey(s.s.KEM, b)
	require.NoError(t, err)
	require.Equal(t, std.PublicKey().Bytes(), ours.PublicKey().Bytes(), "%v: the public key of the same private key", s)
	pub, err := hpke.NewPublicKey(s.s.KEM, std.PublicKey().Bytes())
	require.NoError(t, err)
	return keyPair{std, ours, std.PublicKey(), pub}
}

// randomMessages are n plaintexts of 0 to 3000 bytes (a few of 0, 1, 15,
// 16 and 17) and infos of 0 to 100 bytes.
func randomMessages(r *mrand.Rand, n int) (pts, infos [][]byte) {
	lengths := []int{0, 1, 15, 16, 17, 1024}
	for i := range n {
		size := r.IntN(3001)
		if i < len(lengths) {
			size = lengths[i]
		}
		pt := make([]byte, size)
		rand.Read(pt)
		info := make([]byte, r.IntN(101))
		rand.Read(info)
		pts, infos = append(pts, pt), append(infos, info)
	}
	return pts, infos
}

// Ciphertexts of crypto/hpke's Seal open with the Engine's Open and
// OpenMessages to crypto/hpke's plaintexts, and those of the Engine's
// Seal and SealMessages with crypto/hpke's Open, for every suite, on
// every engine: random messages of random lengths and infos, one info for
// the call and one each.
func TestOpenAndSealMatchGo(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			for _, s := range suites() {
				t.Run(s.String(), func(t *testing.T) {
					r := mrand.New(mrand.NewPCG(1, uint64(s.s.KEM)<<8|uint64(s.s.AEAD)))
					kp := newKeyPair(t, s)
					pts, infos := randomMessages(r, 24)
					info := infos[0]

					// crypto/hpke → ours, one info
					cts := make([][]byte, len(pts))
					for i, pt := range pts {
						ct, err := stdhpke.Seal(kp.stdPub, stdhpke.HKDFSHA256(), s.aead, info, pt)
						require.NoError(t, err)
						cts[i] = ct
					}
					got, err := e.Open(s.s, kp.ours, info, cts)
					require.NoError(t, err)
					for i := range pts {
						require.NotNil(t, got[i], "element %d", i)
						require.True(t, bytes.Equal(pts[i], got[i]), "element %d: plaintext", i)
					}

					// crypto/hpke → ours, an info each
					msgs := make([]hpke.OpenInput, len(pts))
					for i, pt := range pts {
						ct, err := stdhpke.Seal(kp.stdPub, stdhpke.HKDFSHA256(), s.aead, infos[i], pt)
						require.NoError(t, err)
						msgs[i] = hpke.OpenInput{Key: kp.ours, Info: infos[i], Ciphertext: ct}
					}
					got, err = e.OpenMessages(s.s, msgs)
					require.NoError(t, err)
					for i := range pts {
						require.True(t, bytes.Equal(pts[i], got[i]), "element %d: plaintext", i)
					}

					// ours → crypto/hpke, one info, then an info each
					sealed, err := e.Seal(s.s, kp.oursPub, info, pts)
					require.NoError(t, err)
					for i, ct := range sealed {
						require.Len(t, ct, s.s.KEM.EncapsulatedKeySize()+len(pts[i])+hpke.TagSize)
						pt, err := stdhpke.Open(kp.std, stdhpke.HKDFSHA256(), s.aead, info, ct)
						require.NoError(t, err, "element %d", i)
						require.True(t, bytes.Equal(pts[i], pt), "element %d: plaintext", i)
					}
					in := make([]hpke.SealInput, len(pts))
					for i := range pts {
						in[i] = hpke.SealInput{Key: kp.oursPub, Info: infos[i], Plaintext: pts[i]}
					}
					sealed, err = e.SealMessages(s.s, in)
					require.NoError(t, err)
					for i, ct := range sealed {
						pt, err := stdhpke.Open(kp.std, stdhpke.HKDFSHA256(), s.aead, infos[i], ct)
						require.NoError(t, err, "element %d", i)
						require.True(t, bytes.Equal(pts[i], pt), "element %d: plaintext", i)
					}
					// and back through ours
					for i := range pts {
						msgs[i] = hpke.OpenInput{Key: kp.ours, Info: infos[i], Ciphertext: sealed[i]}
					}
					got, err = e.OpenMessages(s.s, msgs)
					require.NoError(t, err)
					for i := range pts {
						require.True(t, bytes.Equal(pts[i], got[i]), "element %d: plaintext", i)
					}
				})
			}
		})
	}
}

// SelfTest passes on every engine; on the device's, the KEM steps ran on
// the device.
func TestSelfTest(t *testing.T) {
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			before := e.Stats()
			require.NoError(t, hpke.SelfTest(e))
			if e.Device() != nil {
				require.Greater(t, e.Stats().DeviceOps, before.DeviceOps)
			}
		})
	}
}

// A call larger than a batch (SetCallChunk) runs as several, from several
// goroutines at once, with every 17th message corrupted: each result is
// the message's plaintext or its error, wherever its batch fell.
func TestCallsInBatches(t *testing.T) {
	defer hpke.SetCallChunk(50)()
	s := suites()[0] // MLKEM768-X25519, AES-128-GCM
	kp := newKeyPair(t, s)
	r := mrand.New(mrand.NewPCG(7, 7))
	pts, _ := randomMessages(r, 333)
	info := []byte("batches")
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			calls := e.Stats().Calls
			sealed, err := e.Seal(s.s, kp.oursPub, info, pts)
			require.NoError(t, err)
			for i := 0; i < len(sealed); i += 17 {
				sealed[i][len(sealed[i])-1] ^= 1
			}
			errs := make(chan error, 3)
			for range 3 {
				go func() {
					got, err := e.Open(s.s, kp.ours, info, sealed)
					var per *batch.Error
					if !errors.As(err, &per) {
						errs <- fmt.Errorf("the call's error %v", err)
						return
					}
					for i := range pts {
						switch {
						case i%17 == 0 && !errors.Is(per.Errs[i], hpke.ErrOpen):
							errs <- fmt.Errorf("element %d: %v, want %v", i, per.Errs[i], hpke.ErrOpen)
							return
						case i%17 == 0 && got[i] != nil:
							errs <- fmt.Errorf("element %d: a plaintext of a message that does not open", i)
							return
						case i%17 != 0 && (per.Errs[i] != nil || !bytes.Equal(got[i], pts[i])):
							errs <- fmt.Errorf("element %d: %v, plaintext %t", i, per.Errs[i], bytes.Equal(got[i], pts[i]))
							return
						}
					}
					errs <- nil
				}()
			}
			for range 3 {
				require.NoError(t, <-errs)
			}
			require.Equal(t, calls+4, e.Stats().Calls)
		})
	}
}

// PrivateKeyOf and PublicKeyOf take crypto/hpke's keys: the same key
// pair; a KEM the Engine does not compute is refused.
func TestKeysOfGo(t *testing.T) {
	for _, s := range suites() {
		std, err := s.kem.GenerateKey()
		require.NoError(t, err)
		k, err := hpke.PrivateKeyOf(std)
		require.NoError(t, err)
		require.Equal(t, std.PublicKey().Bytes(), k.PublicKey().Bytes())
		want, err := std.Bytes()
		require.NoError(t, err)
		got, err := k.Bytes()
		require.NoError(t, err)
		require.Equal(t, want, got, "%v: Bytes", s)
		pub, err := hpke.PublicKeyOf(std.PublicKey())
		require.NoError(t, err)
		require.Equal(t, std.PublicKey().Bytes(), pub.Bytes())
	}
	p256, err := stdhpke.DHKEM(stdecdh.P256()).GenerateKey()
	require.NoError(t, err)
	_, err = hpke.PrivateKeyOf(p256)
	require.ErrorIs(t, err, hpke.ErrSuite)
	_, err = hpke.PublicKeyOf(p256.PublicKey())
	require.ErrorIs(t, err, hpke.ErrSuite)
}
