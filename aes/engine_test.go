package aes_test

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

var (
	enginesMu sync.Mutex
	engines   = map[aes.Layout]*aes.Engine{}
)

// layouts are the table layouts the test device can run.
func layouts(t testing.TB) []aes.Layout {
	d := devicetest.Device(t)
	out := []aes.Layout{aes.LayoutCompact}
	if d.MaxSharedMem >= 136<<10 {
		out = append(out, aes.LayoutWide)
	}
	return out
}

func engine(t testing.TB, l aes.Layout) *aes.Engine {
	t.Helper()
	d := devicetest.Device(t)
	enginesMu.Lock()
	defer enginesMu.Unlock()
	if e := engines[l]; e != nil {
		return e
	}
	e, err := aes.NewEngineConfig(d, aes.Config{Layout: l, Segment: 4})
	require.NoError(t, err)
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	engines[l] = e
	return e
}

// eachLayout runs f on an engine of every layout the device can run.
func eachLayout(t *testing.T, f func(t *testing.T, e *aes.Engine)) {
	for _, l := range layouts(t) {
		t.Run(l.String(), func(t *testing.T) { f(t, engine(t, l)) })
	}
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func newKey(t testing.TB, size int) (*aes.Key, cipher.Block, []byte) {
	raw := randBytes(size)
	k, err := aes.NewKey(raw)
	require.NoError(t, err)
	b, err := stdaes.NewCipher(raw)
	require.NoError(t, err)
	return k, b, raw
}

func TestECBDifferential(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		for _, size := range []int{16, 24, 32} {
			k, std, _ := newKey(t, size)
			for _, blocks := range []int{0, 1, 7, 33, 1000} {
				src := randBytes(16 * blocks)
				got := make([]byte, len(src))
				require.NoError(t, e.EncryptBlocks(k, got, src))
				want := make([]byte, len(src))
				for i := 0; i < len(src); i += 16 {
					std.Encrypt(want[i:], src[i:])
				}
				require.Equal(t, want, got, "AES-%d ECB encrypt, %d blocks", 8*size, blocks)
				back := make([]byte, len(src))
				require.NoError(t, e.DecryptBlocks(k, back, got))
				require.Equal(t, src, back, "AES-%d ECB decrypt, %d blocks", 8*size, blocks)
			}
		}
	})
}

func TestCTRDifferential(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		rng := mrand.New(mrand.NewPCG(1, 2))
		for _, size := range []int{16, 24, 32} {
			k, std, _ := newKey(t, size)
			for _, n := range []int{0, 1, 15, 16, 17, 255, 4096, 70000} {
				iv := randBytes(16)
				if rng.IntN(2) == 0 { // carries across the 64-bit halves
					copy(iv[8:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0})
				}
				src := randBytes(n)
				got := make([]byte, n)
				require.NoError(t, e.XORKeyStream(k, iv, got, src))
				want := make([]byte, n)
				cipher.NewCTR(std, iv).XORKeyStream(want, src)
				require.True(t, bytes.Equal(want, got), "AES-%d CTR, %d bytes", 8*size, n)
				// in place
				require.NoError(t, e.XORKeyStream(k, iv, src, src))
				require.True(t, bytes.Equal(want, src), "AES-%d CTR in place, %d bytes", 8*size, n)
			}
		}
	})
}

func TestGCMDifferential(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		rng := mrand.New(mrand.NewPCG(3, 4))
		sizes := []int{0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 1500, 4097, 16384, 70000}
		var msgs []aes.Message
		var aeads []cipher.AEAD
		for i := range 3 * len(sizes) {
			ks := []int{16, 24, 32}[i%3]
			k, std, _ := newKey(t, ks)
			nonceLen := 12
			if i%5 == 4 {
				nonceLen = []int{1, 8, 16, 64}[rng.IntN(4)]
			}
			aead, err := cipher.NewGCMWithNonceSize(std, nonceLen)
			require.NoError(t, err)
			msgs = append(msgs, aes.Message{Key: k, Nonce: randBytes(nonceLen), AAD: randBytes([]int{0, 5, 13, 16, 40, 300}[rng.IntN(6)]),
				Data: randBytes(sizes[i%len(sizes)])})
			aeads = append(aeads, aead)
		}
		sealed, err := e.Seal(msgs)
		require.NoError(t, err)
		for i, m := range msgs {
			want := aeads[i].Seal(nil, m.Nonce, m.Data, m.AAD)
			require.True(t, bytes.Equal(want, sealed[i]), "message %d: %d bytes, AAD %d, nonce %d, key %d", i, len(m.Data), len(m.AAD), len(m.Nonce), m.Key.Size())
		}
		opens := opensOf(msgs, sealed)
		// tamper with a few
		tampered := map[int]bool{}
		for _, i := range []int{2, 7, 11} {
			d := append([]byte(nil), opens[i].Data...)
			d[rng.IntN(len(d))] ^= 1 << rng.IntN(8)
			opens[i].Data = d
			tampered[i] = true
		}
		opens[20].AAD = append(append([]byte(nil), opens[20].AAD...), 0)
		tampered[20] = true
		plain, err := e.Open(opens)
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		for i, m := range msgs {
			if tampered[i] {
				require.ErrorIs(t, be.Errs[i], aes.ErrOpen, "message %d", i)
				require.Nil(t, plain[i])
				continue
			}
			require.NoError(t, be.Errs[i], "message %d", i)
			require.True(t, bytes.Equal(m.Data, plain[i]), "message %d opened", i)
		}
	})
}

func TestGCMInvalidElements(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	k, _, _ := newKey(t, 16)
	dead, _, _ := newKey(t, 16)
	dead.Close()
	msgs := []aes.Message{
		{Key: k, Nonce: make([]byte, 12), Data: []byte("fine")},
		{Key: nil, Nonce: make([]byte, 12)},
		{Key: k, Nonce: nil},
		{Key: dead, Nonce: make([]byte, 12)},
	}
	out, err := e.Seal(msgs)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.NoError(t, be.Errs[0])
	require.Len(t, out[0], 4+aes.TagSize)
	require.ErrorIs(t, be.Errs[1], aes.ErrNilKey)
	require.Error(t, be.Errs[2])
	require.ErrorIs(t, be.Errs[3], aes.ErrKeyDestroyed)
	_, err = e.Open([]aes.Message{{Key: k, Nonce: make([]byte, 12), Data: make([]byte, 15)}})
	require.ErrorAs(t, err, &be)
	require.ErrorContains(t, be.Errs[0], "shorter than the tag")
}

func TestBadInput(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	_, err := aes.NewKey(make([]byte, 17))
	require.Equal(t, aes.KeySizeError(17), err)
	k, _, _ := newKey(t, 16)
	require.ErrorContains(t, e.EncryptBlocks(k, make([]byte, 17), make([]byte, 17)), "whole number of blocks")
	require.ErrorContains(t, e.EncryptBlocks(k, make([]byte, 16), make([]byte, 32)), "shorter")
	buf := make([]byte, 64)
	require.ErrorIs(t, e.XORKeyStream(k, make([]byte, 16), buf[1:33], buf[0:32]), aes.ErrOverlap)
	require.ErrorContains(t, e.XORKeyStream(k, make([]byte, 12), buf, buf), "counter block")
	require.NoError(t, e.XORKeyStream(k, make([]byte, 16), buf, buf))
	_ = fmt.Sprint()
	_ = errors.New
}

func TestDeviceResident(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		d := e.Device()
		k, std, _ := newKey(t, 32)
		for _, n := range []int{0, 5, 16, 1000, 70001} {
			src := randBytes(n)
			in, err := d.NewBuffer(max(n, 16))
			require.NoError(t, err)
			out, err := d.NewBuffer(max(n, 16))
			require.NoError(t, err)
			if n > 0 {
				require.NoError(t, in.Write(0, src))
			}
			iv := randBytes(16)
			require.NoError(t, e.XORKeyStreamDevice(k, iv, out, in, n))
			got := make([]byte, n)
			require.NoError(t, out.Read(0, got))
			want := make([]byte, n)
			cipher.NewCTR(std, iv).XORKeyStream(want, src)
			require.True(t, bytes.Equal(want, got), "CTR, %d bytes", n)

			nonce, aad := randBytes(12), randBytes(n%37)
			tag, err := e.SealDevice(k, nonce, aad, out, in, n)
			require.NoError(t, err)
			aead, _ := cipher.NewGCM(std)
			sealed := aead.Seal(nil, nonce, src, aad)
			require.NoError(t, out.Read(0, got))
			require.True(t, bytes.Equal(sealed[:n], got), "GCM ciphertext, %d bytes", n)
			require.Equal(t, sealed[n:], tag, "GCM tag, %d bytes", n)
			// open in place
			require.NoError(t, e.OpenDevice(k, nonce, aad, tag, out, out, n))
			require.NoError(t, out.Read(0, got))
			require.True(t, bytes.Equal(src, got), "GCM open, %d bytes", n)
			// a wrong tag releases nothing
			tag[0] ^= 1
			_, err = e.SealDevice(k, nonce, aad, out, in, n)
			require.NoError(t, err)
			require.ErrorIs(t, e.OpenDevice(k, nonce, aad, tag, out, out, n), aes.ErrOpen)
			require.NoError(t, out.Read(0, got))
			require.True(t, bytes.Equal(make([]byte, n), got), "GCM failed open leaves zeros, %d bytes", n)
			in.Release()
			out.Release()
		}
	})
}

// TestChunkBoundaries runs the host-memory calls through stages of a few
// blocks, so that every call crosses several chunks and reuses each stage.
func TestChunkBoundaries(t *testing.T) {
	d := devicetest.Device(t)
	e, err := aes.NewEngineConfig(d, aes.Config{Layout: aes.LayoutCompact, Segment: 2})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	const stage = 4096 + 48
	e.SetStageBytes(stage)
	defer e.ReleaseBuffers()
	k, std, _ := newKey(t, 16)
	for _, n := range []int{stage - 1, stage, stage + 1, 3*stage + 17, 9*stage + 5} {
		iv := randBytes(16)
		src := randBytes(n)
		got := make([]byte, n)
		require.NoError(t, e.XORKeyStream(k, iv, got, src))
		want := make([]byte, n)
		cipher.NewCTR(std, iv).XORKeyStream(want, src)
		require.True(t, bytes.Equal(want, got), "CTR across chunks, %d bytes", n)
		n16 := n &^ 15
		require.NoError(t, e.EncryptBlocks(k, got[:n16], src[:n16]))
		for i := 0; i < n16; i += 16 {
			std.Encrypt(want[i:], src[i:])
		}
		require.True(t, bytes.Equal(want[:n16], got[:n16]), "ECB across chunks, %d bytes", n16)
	}
	// GCM: batches split over several stages, and messages larger than a
	// stage (the path of their own).
	var msgs []aes.Message
	var wants [][]byte
	for i, n := range []int{0, 100, 1500, 2000, stage - 200, stage + 1, 3 * stage, 700, 16, 1} {
		k, std, _ := newKey(t, []int{16, 24, 32}[i%3])
		aead, _ := cipher.NewGCM(std)
		m := aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes(i * 7), Data: randBytes(n)}
		msgs = append(msgs, m)
		wants = append(wants, aead.Seal(nil, m.Nonce, m.Data, m.AAD))
	}
	sealed, err := e.Seal(msgs)
	require.NoError(t, err)
	plains := make([][]byte, len(msgs))
	for i := range msgs {
		require.True(t, bytes.Equal(wants[i], sealed[i]), "GCM message %d (%d bytes)", i, len(msgs[i].Data))
		plains[i] = msgs[i].Data
		msgs[i].Data = sealed[i]
	}
	// a tampered tag on a message larger than a stage
	tampered := append([]byte(nil), sealed[6]...)
	tampered[len(tampered)-1] ^= 1
	msgs = append(msgs, aes.Message{Key: msgs[6].Key, Nonce: msgs[6].Nonce, AAD: msgs[6].AAD, Data: tampered})
	opened, err := e.Open(msgs)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	for i := range plains {
		require.NoError(t, be.Errs[i])
		require.True(t, bytes.Equal(plains[i], opened[i]), "GCM open, message %d", i)
	}
	require.ErrorIs(t, be.Errs[len(plains)], aes.ErrOpen)
	require.Nil(t, opened[len(plains)])
}

func TestGCMOut(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	k, std, _ := newKey(t, 16)
	aead, _ := cipher.NewGCM(std)
	nonce, aad := randBytes(12), randBytes(9)
	plain := randBytes(1000)
	want := aead.Seal(nil, nonce, plain, aad)
	// into a buffer of the caller's
	out := make([]byte, 0, 2000)
	res, err := e.Seal([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: plain, Out: out}})
	require.NoError(t, err)
	require.Equal(t, want, res[0])
	require.True(t, &res[0][0] == &out[:1][0], "result in Out")
	// in place
	buf := make([]byte, len(plain), len(plain)+aes.TagSize)
	copy(buf, plain)
	res, err = e.Seal([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: buf, Out: buf}})
	require.NoError(t, err)
	require.Equal(t, want, res[0])
	res, err = e.Open([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: res[0], Out: res[0][:0]}})
	require.NoError(t, err)
	require.Equal(t, plain, res[0])
	// shifted overlap is refused
	big := make([]byte, 3000)
	_, err = e.Seal([]aes.Message{{Key: k, Nonce: nonce, Data: big[:1000], Out: big[1:1]}})
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, be.Errs[0], aes.ErrOverlap)
}

// TestGHASHFourWays keeps the four-block groups of gcm_segments
// (GHASH_WAYS=4, a tuning knob; the default hashes two blocks per
// reduction) correct, sealing and opening.
func TestGHASHFourWays(t *testing.T) {
	d := devicetest.Device(t)
	e, err := aes.NewEngineConfig(d, aes.Config{Layout: aes.LayoutCompact, Segment: 8, Defines: map[string]string{"GHASH_WAYS": "4"}})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	var msgs []aes.Message
	var want [][]byte
	for i, n := range []int{0, 1, 17, 100, 1500, 5000} {
		k, std, _ := newKey(t, 16)
		aead, _ := cipher.NewGCM(std)
		m := aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes(3 * i), Data: randBytes(n)}
		msgs = append(msgs, m)
		want = append(want, aead.Seal(nil, m.Nonce, m.Data, m.AAD))
	}
	got, err := e.Seal(msgs)
	require.NoError(t, err)
	for i := range msgs {
		require.Equal(t, want[i], got[i], "message %d", i)
	}
	requireOpened(t, e, msgs, got, "")
}

// opensOf are the Open messages of msgs, sealed into sealed.
func opensOf(msgs []aes.Message, sealed [][]byte) []aes.Message {
	opens := make([]aes.Message, len(msgs))
	for i, m := range msgs {
		opens[i] = aes.Message{Key: m.Key, Nonce: m.Nonce, AAD: m.AAD, Data: sealed[i]}
	}
	return opens
}

// requireOpened opens msgs, sealed into sealed, in one call of e, and
// requires each plaintext back; label prefixes the failures' messages.
func requireOpened(t *testing.T, e *aes.Engine, msgs []aes.Message, sealed [][]byte, label string) {
	t.Helper()
	plain, err := e.Open(opensOf(msgs, sealed))
	require.NoError(t, err)
	for i, m := range msgs {
		require.True(t, bytes.Equal(m.Data, plain[i]), "%smessage %d opened", label, i)
	}
}

// TestGCMOneKeySize runs batches whose keys all have one size, which the
// kernel with that number of rounds fixed computes (gcm_segments_r10, r12,
// r14; mixed sizes take gcm_segments), through lengths around the groups
// of full blocks and the segments (AAD, partial blocks, the lengths block
// in any position), sealing, opening and in place.
func TestGCMOneKeySize(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		for _, size := range []int{16, 24, 32} {
			var msgs []aes.Message
			var want [][]byte
			for i, n := range []int{0, 1, 16, 31, 32, 33, 48, 64, 255, 256, 257, 512, 1000, 4096} {
				k, std, _ := newKey(t, size)
				aead, _ := cipher.NewGCM(std)
				m := aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes([]int{0, 1, 16, 17, 32, 45}[i%6]), Data: randBytes(n)}
				msgs = append(msgs, m)
				want = append(want, aead.Seal(nil, m.Nonce, m.Data, m.AAD))
			}
			got, err := e.Seal(msgs)
			require.NoError(t, err)
			for i, m := range msgs {
				require.Equal(t, want[i], got[i], "AES-%d, message %d (%d bytes, AAD %d)", 8*size, i, len(m.Data), len(m.AAD))
			}
			// one message alone, in place: sealed, then opened
			for i := range msgs {
				m := msgs[i]
				buf := make([]byte, len(m.Data), len(m.Data)+aes.TagSize)
				copy(buf, m.Data)
				res, err := e.Seal([]aes.Message{{Key: m.Key, Nonce: m.Nonce, AAD: m.AAD, Data: buf, Out: buf}})
				require.NoError(t, err)
				require.Equal(t, want[i], res[0], "AES-%d, message %d alone", 8*size, i)
				res, err = e.Open([]aes.Message{{Key: m.Key, Nonce: m.Nonce, AAD: m.AAD, Data: res[0], Out: res[0][:0]}})
				require.NoError(t, err)
				require.True(t, bytes.Equal(m.Data, res[0]), "AES-%d, message %d opened alone", 8*size, i)
			}
			requireOpened(t, e, msgs, got, fmt.Sprintf("AES-%d, ", 8*size))
		}
	})
}

func TestSelfTest(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		require.NoError(t, aes.SelfTest(e))
	})
}

// TestPinnedBulk runs the bulk calls on memory from Device.HostAlloc:
// where it is pinned (CUDA) the device copies from and to it directly.
func TestPinnedBulk(t *testing.T) {
	d := devicetest.Device(t)
	e, err := aes.NewEngineConfig(d, aes.Config{StageBytes: 8192})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	defer e.ReleaseBuffers()
	k, std, _ := newKey(t, 32)
	const n = 5*8192 + 77
	h, err := d.HostAlloc(2 * n)
	require.NoError(t, err)
	defer h.Free()
	src, dst := h.Bytes[:n], h.Bytes[n:]
	rand.Read(src)
	iv := randBytes(16)
	want := make([]byte, n)
	cipher.NewCTR(std, iv).XORKeyStream(want, src)
	require.NoError(t, e.XORKeyStream(k, iv, dst, src))
	require.True(t, bytes.Equal(want, dst), "CTR from and to host memory (pinned: %v)", device.Pinned(src))
	require.NoError(t, e.XORKeyStream(k, iv, src, src))
	require.True(t, bytes.Equal(want, src), "CTR in place")
}

// TestOddAlignment gives the host-memory calls inputs and outputs that
// start at odd addresses.
func TestOddAlignment(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	k, std, _ := newKey(t, 24)
	buf := randBytes(10000)
	for _, off := range []int{1, 3, 7, 13} {
		src := buf[off : off+5000+off]
		dst := make([]byte, len(src)+off)[off:]
		iv := randBytes(16)
		require.NoError(t, e.XORKeyStream(k, iv, dst, src))
		want := make([]byte, len(src))
		cipher.NewCTR(std, iv).XORKeyStream(want, src)
		require.True(t, bytes.Equal(want, dst), "CTR at offset %d", off)
		aead, _ := cipher.NewGCM(std)
		nonce, aad := randBytes(12), buf[off:off+off*3]
		sealed, err := e.Seal([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: src}})
		require.NoError(t, err)
		require.Equal(t, aead.Seal(nil, nonce, src, aad), sealed[0], "GCM at offset %d", off)
	}
}
