package rsa

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// testDeviceEngine returns a new Engine on the test device whose calls
// all run on the device (batch.RouteDevice: the kernels are what these
// tests test), closed when the test ends.
func testDeviceEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// runCommands runs one set of device commands on e's stages and pool.
func runCommands(e *Engine, enqueue func(c *device.Commands) error) error {
	s, err := e.core.Stages()
	if err != nil {
		return err
	}
	_, err = s.Run(e.core.Pool(), enqueue)
	return err
}

// splitInputs are inputs below n that stress rsa_split's reduction: 0, 1,
// n−1, the primes, their neighbours and multiples, chunks (H words: the
// split point) of all ones or zero, and random values.
func splitInputs(k *privateKey, H int, rng *mrand.Rand) []*big.Int {
	n := k.pub.n
	r := new(big.Int).Lsh(bigOne, uint(32*H)) // R: the chunk boundary
	sub := func(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
	xs := []*big.Int{
		big.NewInt(0), big.NewInt(1), sub(n, bigOne), new(big.Int).Set(k.p), new(big.Int).Set(k.q),
		sub(k.p, bigOne), sub(k.q, bigOne), new(big.Int).Lsh(k.p, 1), new(big.Int).Mul(k.q, big.NewInt(3)),
		sub(r, bigOne),                        // low chunk all ones, high zero
		new(big.Int).Set(r),                   // low chunk zero, high one
		new(big.Int).Mul(r, sub(k.p, bigOne)), // a multiple of R
		new(big.Int).Mul(sub(r, bigOne), k.q), // both chunks large
		sub(n, new(big.Int).Add(k.p, k.q)),    // n − p − q
		new(big.Int).Rsh(n, 1),
	}
	for range 40 {
		buf := make([]byte, (n.BitLen()+7)/8)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		xs = append(xs, new(big.Int).Mod(new(big.Int).SetBytes(buf), n))
	}
	var out []*big.Int
	for _, x := range xs {
		if x.Sign() >= 0 && x.Cmp(n) < 0 {
			out = append(out, x)
		}
	}
	return out
}

// rsa_split against math/big: x mod p and x mod q of every element and
// the prime of each half, with the keys of one width mixed in a batch.
// The no-final-subtraction form (halves one word wider) is checked at one
// size.
func TestSplitKernel(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	cases := []struct {
		names []string
		form  arith.Form
	}{
		{[]string{"rsa1024a", "rsa1024b"}, ""}, {[]string{"rsa2048a", "rsa2048b"}, ""}, {[]string{"rsa2049"}, ""},
		{[]string{"rsa3072"}, ""}, {[]string{"rsa4096"}, ""}, {[]string{"rsa2048a", "rsa2048b"}, arith.NoFinalSub},
	}
	for _, c := range cases {
		names := c.names
		e := testDeviceEngine(t)
		b := e.d
		b.cfg.Form = c.form
		form := c.form
		if form == "" {
			form = "default"
		}
		t.Run(fmt.Sprintf("%s/%s", names[0], form), func(t *testing.T) {
			var pks []*privateKey
			for _, name := range names {
				e, err := preparePrivate(loadKey(t, name))
				require.NoError(t, err)
				pks = append(pks, e)
			}
			mh, mf, err := b.widths(pks[0].half, pks[0].pub.limbs, 0)
			require.NoError(t, err)
			width := b.widthClass(mh, mf)
			var deviceForms []*deviceForm
			for _, k := range pks {
				require.Equal(t, [2]int{pks[0].half, pks[0].pub.limbs}, [2]int{k.half, k.pub.limbs})
				form, err := b.deviceFormOf(k, width, mh, mf)
				require.NoError(t, err)
				deviceForms = append(deviceForms, form)
			}
			var ins []*big.Int
			var kidx []uint32
			for j, k := range pks {
				for _, x := range splitInputs(k, mh.W, rng) {
					ins = append(ins, x)
					kidx = append(kidx, uint32(j))
				}
			}
			// interleave the keys
			rng.Shuffle(len(ins), func(i, j int) {
				ins[i], ins[j] = ins[j], ins[i]
				kidx[i], kidx[j] = kidx[j], kidx[i]
			})
			m, W, F, K := len(ins), mh.W, mf.W, len(deviceForms)
			size := modBytes(pks[0].pub)
			xs := make([]uint32, F*m)
			putColumns(xs, F, m, func(col int) []byte { return ins[col].FillBytes(make([]byte, size)) })
			tables := privateTables(deviceForms, mh, mf)
			base := make([]uint32, W*2*m)
			midx := make([]uint32, 2*m)
			require.NoError(t, runCommands(e, func(c *device.Commands) error {
				prog, err := b.program(mh, mf, true, false)
				if err != nil {
					return err
				}
				kern, err := prog.Kernel("rsa_split")
				if err != nil {
					return err
				}
				var d [6]*device.Buffer
				for j, w := range [][]uint32{xs, kidx, tables[1], tables[2], tables[3], tables[4]} {
					if d[j], err = c.Upload(w, true); err != nil {
						return err
					}
				}
				dbase, err := c.Buffer(4*len(base), true)
				if err != nil {
					return err
				}
				dmidx, err := c.Buffer(4*len(midx), true)
				if err != nil {
					return err
				}
				if err := c.Launch(kern, 2*m, rsaWorkGroup, dbase, dmidx, d[0], d[2], d[3], d[4], d[5], d[1], uint32(K), uint32(m)); err != nil {
					return err
				}
				if err := c.Read(dbase, device.Uint32Bytes(base)); err != nil {
					return err
				}
				return c.Read(dmidx, device.Uint32Bytes(midx))
			}))
			got := make([][]byte, 2*m)
			getColumns(base, W, 2*m, func(col int) []byte {
				got[col] = make([]byte, 4*W)
				return got[col]
			})
			for col, x := range ins {
				k := pks[kidx[col]]
				require.Equal(t, new(big.Int).Mod(x, k.p).String(), new(big.Int).SetBytes(got[col]).String(), "x mod p, element %d (x = %x)", col, x)
				require.Equal(t, new(big.Int).Mod(x, k.q).String(), new(big.Int).SetBytes(got[m+col]).String(), "x mod q, element %d (x = %x)", col, x)
				require.Equal(t, kidx[col], midx[col])
				require.Equal(t, uint32(K)+kidx[col], midx[m+col])
			}
		})
	}
}

// A group larger than one device batch runs in chunks: every result is
// right, and a fault injected in a later chunk fails that element alone.
func TestPrivateChunks(t *testing.T) {
	e := testDeviceEngine(t)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	k := loadKey(t, "rsa1024a")
	mh, _, err := e.d.widths(16, 32, 0)
	require.NoError(t, err)
	tableLimit = uint64(3 * 2 * 4 * mh.TableWords()) // three elements per chunk
	t.Cleanup(func() { tableLimit = 0 })
	const n, bad = 8, 4
	digests := make([][]byte, n)
	keys := make([]*stdrsa.PrivateKey, n)
	for i := range digests {
		d := sha256.Sum256([]byte{byte(i), 3})
		digests[i], keys[i] = d[:], k
	}
	requireSignatures(t, e, keys, digests, bad)
	require.Equal(t, int64(3), e.Stats().Batches)
}

// After a batch, the memory the engine keeps for batches holds nothing:
// every device buffer (inputs, key positions, bases, the table of powers,
// halves, results) and every staging buffer (inputs, encoded messages,
// results) reads back as zeros. (The key tables stay resident:
// TestResidentKeys.)
func TestScratchZeroed(t *testing.T) {
	e := testDeviceEngine(t)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	k := loadKey(t, "rsa1024a")
	digests := make([][]byte, 5)
	for i := range digests {
		d := sha256.Sum256([]byte{byte(i)})
		digests[i] = d[:]
	}
	sigs, err := e.SignPKCS1v15(repeat(k, 5), crypto.SHA256, digests)
	require.NoError(t, err)
	require.NoError(t, e.verifyPKCS1v15(repeat(&k.PublicKey, 5), crypto.SHA256, digests, sigs))
	idle, err := e.core.Pool().IdleContents() // no batch runs: every buffer is idle
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(idle), 8, "the buffers of a private batch are kept")
	require.Positive(t, e.core.IdleStaging(), "the staging memory is kept")
	require.NoError(t, e.CheckIdleZero())
	// decryptions too: their staging held the decrypted values
	cts := make([][]byte, len(sigs))
	for i := range cts {
		cts[i], err = stdrsa.EncryptPKCS1v15(rand.Reader, &k.PublicKey, digests[i])
		require.NoError(t, err)
	}
	pts, err := e.DecryptPKCS1v15(repeat(k, len(cts)), cts)
	require.NoError(t, err)
	require.Equal(t, digests, pts)
	require.NoError(t, e.CheckIdleZero())
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// A group larger than pipelineChunk runs as chunks two at a time: with
// several keys, every result is crypto/rsa's, and a bad element fails
// alone.
func TestPrivatePipelinedChunks(t *testing.T) {
	e := testDeviceEngine(t)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	old := pipelineChunk
	pipelineChunk = 5
	t.Cleanup(func() { pipelineChunk = old })
	ks := []*stdrsa.PrivateKey{loadKey(t, "rsa1024a"), loadKey(t, "rsa1024b"), loadKey(t, "rsa2048a")}
	const n, bad = 23, 11
	digests := make([][]byte, n)
	keys := make([]*stdrsa.PrivateKey, n)
	for i := range digests {
		d := sha256.Sum256([]byte{byte(i), 7})
		digests[i], keys[i] = d[:], ks[i%len(ks)]
	}
	digests[bad] = digests[bad][:5] // not a SHA-256 digest
	sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
	var be *batch.Error
	require.ErrorAs(t, err, &be)
	for i := range n {
		if i == bad {
			require.Error(t, be.Errs[i])
			require.Nil(t, sigs[i])
			continue
		}
		require.NoError(t, be.Errs[i])
		want, err := stdrsa.SignPKCS1v15(nil, keys[i], crypto.SHA256, digests[i])
		require.NoError(t, err)
		require.Equal(t, want, sigs[i], "element %d", i)
	}
}

// Byte-level calls larger than pipelineChunk run as pipelined chunks,
// from the padding to the encoding: PSS signatures verify, decryptions of
// every kind give the plaintexts, and bad elements fail alone, at their
// own index.
func TestPipelinedCalls(t *testing.T) {
	e := testDeviceEngine(t)
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	old := pipelineChunk
	pipelineChunk = 4
	t.Cleanup(func() { pipelineChunk = old })
	ks := []*stdrsa.PrivateKey{loadKey(t, "rsa1024a"), loadKey(t, "rsa2048a")}
	const n, bad = 19, 9
	keys := make([]*stdrsa.PrivateKey, n)
	digests := make([][]byte, n)
	msgs := make([][]byte, n)
	oaep := make([][]byte, n)
	pkcs := make([][]byte, n)
	for i := range n {
		keys[i] = ks[i%len(ks)]
		d := sha256.Sum256([]byte{byte(i), 9})
		digests[i] = d[:]
		msgs[i] = d[:16]
		var err error
		oaep[i], err = stdrsa.EncryptOAEP(sha256.New(), rand.Reader, &keys[i].PublicKey, msgs[i], nil)
		require.NoError(t, err)
		pkcs[i], err = stdrsa.EncryptPKCS1v15(rand.Reader, &keys[i].PublicKey, msgs[i])
		require.NoError(t, err)
	}
	oaep[bad], pkcs[bad] = oaep[bad][1:], pkcs[bad][1:] // the wrong length
	sigs, err := e.SignPSS(rand.Reader, keys, crypto.SHA256, digests, nil)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, stdrsa.VerifyPSS(&keys[i].PublicKey, crypto.SHA256, digests[i], sigs[i], nil), "element %d", i)
	}
	for name, decrypt := range map[string]func() ([][]byte, error){
		"OAEP":     func() ([][]byte, error) { return e.DecryptOAEP(crypto.SHA256, keys, oaep, nil) },
		"PKCS1v15": func() ([][]byte, error) { return e.DecryptPKCS1v15(keys, pkcs) },
		"SessionKey": func() ([][]byte, error) {
			out := make([][]byte, n)
			for i := range out {
				out[i] = make([]byte, 16)
			}
			return out, e.DecryptPKCS1v15SessionKey(keys, pkcs, out)
		},
	} {
		got, err := decrypt()
		var be *batch.Error
		require.ErrorAs(t, err, &be, name)
		for i := range n {
			if i == bad {
				require.Error(t, be.Errs[i], "%s element %d", name, i)
				continue
			}
			require.NoError(t, be.Errs[i], "%s element %d", name, i)
			require.Equal(t, msgs[i], got[i], "%s element %d", name, i)
		}
	}
}

// The key tables stay on the device between batches: a batch of keys seen
// before uploads none and uses the same set; a new key makes a set with
// the old keys and the new one; a replaced set, an idle one and one whose
// batch failed are zeroed before they are freed; results stay right
// throughout.
func TestResidentKeys(t *testing.T) {
	e := testDeviceEngine(t)
	b := e.d
	e.OnFallback(func(err error) { t.Errorf("unexpected fallback: %v", err) })
	var dropped int
	t.Cleanup(func() { residentDropped = nil })
	residentDropped = func(bufs []*device.Buffer) {
		dropped++
		for n, buf := range bufs {
			data := make([]byte, buf.Size())
			require.NoError(t, buf.Read(0, data))
			for i, c := range data {
				require.Zero(t, c, "resident table %d, byte %d of %d", n, i, len(data))
			}
		}
	}
	k1, k2 := loadKey(t, "rsa1024a"), loadKey(t, "rsa1024b")
	sign := func(keys ...*stdrsa.PrivateKey) {
		t.Helper()
		digests := make([][]byte, len(keys))
		for i := range digests {
			d := sha256.Sum256([]byte{byte(i), 5})
			digests[i] = d[:]
		}
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		require.NoError(t, err)
		for i, k := range keys {
			require.NoError(t, stdrsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digests[i], sigs[i]))
		}
	}
	current := func() *keySet { // the private keys' set
		b.resident.mu.Lock()
		defer b.resident.mu.Unlock()
		var sets []*keySet
		for class, s := range b.resident.sets {
			if !strings.Contains(class, "/pub/") {
				sets = append(sets, s)
			}
		}
		require.Len(t, sets, 1)
		return sets[0]
	}
	sign(k1, k1, k1)
	first := current()
	require.Equal(t, 1, first.K())
	sign(k1)
	require.Same(t, first, current(), "a batch of known keys reuses the set")
	sign(k2, k1)
	second := current()
	require.Equal(t, 2, second.K(), "the old key and the new one")
	require.Equal(t, 1, dropped, "the replaced set is dropped")
	sign(k1, k2, k2)
	require.Same(t, second, current())

	// a failed batch retires its set
	set, _ := b.resident.acquire(second.class, second.keys, nil)
	require.Same(t, second, set)
	b.resident.release(set, true)
	require.Equal(t, 2, dropped)
	sign(k2)
	require.Equal(t, 1, current().K())

	// public keys have their resident set too; dropAll drops every set
	d := sha256.Sum256([]byte("public"))
	sig, err := stdrsa.SignPKCS1v15(nil, k1, crypto.SHA256, d[:])
	require.NoError(t, err)
	require.NoError(t, e.verifyPKCS1v15([]*stdrsa.PublicKey{&k1.PublicKey}, crypto.SHA256, [][]byte{d[:]}, [][]byte{sig}))
	b.resident.mu.Lock()
	require.Len(t, b.resident.sets, 2)
	b.resident.mu.Unlock()
	b.resident.dropAll()
	require.Equal(t, 4, dropped)
	b.resident.mu.Lock()
	require.Empty(t, b.resident.sets)
	b.resident.mu.Unlock()
	sign(k1, k2) // a new set again
	idle := current()
	require.Equal(t, 2, idle.K())

	// a set unused for bufferIdle expires; a used one does not
	b.resident.expire(idle)
	require.Same(t, idle, current())
	b.resident.mu.Lock()
	idle.lastUse = time.Now().Add(-bufferIdle)
	b.resident.mu.Unlock()
	b.resident.expire(idle)
	require.Equal(t, 5, dropped)
	sign(k1)
	require.NotSame(t, idle, current())

	// ReleaseBuffers drops the sets too
	e.ReleaseBuffers()
	require.Equal(t, 6, dropped)
	b.resident.mu.Lock()
	require.Empty(t, b.resident.sets)
	b.resident.mu.Unlock()
}
