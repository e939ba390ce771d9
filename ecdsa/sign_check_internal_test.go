package ecdsa

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// P256_CHECK_SCALAR (kernels/ecdsa.cl) is c^−1·2^256 mod n for
// c = kernels.FaultCheckMultiple, as math/big computes it.
func TestSignCheckConstant(t *testing.T) {
	src, err := kernels.Source("ecdsa.cl", nil)
	require.NoError(t, err)
	got := devicetest.DefineArrays(t, src, "P256_CHECK_SCALAR")["P256_CHECK_SCALAR"]
	require.NotNil(t, got)
	want := new(big.Int).ModInverse(big.NewInt(kernels.FaultCheckMultiple), orderInt)
	want.Lsh(want, 256).Mod(want, orderInt)
	require.Zero(t, want.Cmp(got), "header %#x, want %#x", got, want)
}

// withFaultInjection makes the engines that NewEngine builds until the
// test ends have the kernels' fault injection (faultInjection).
func withFaultInjection(t *testing.T) {
	faultInjection = true
	t.Cleanup(func() { faultInjection = false })
}

// faultEvery4 corrupts every fourth element of a call, from the second,
// with nonce bits of several words in turn (the low word of k: its
// lowest bit, a middle one, its top one, several).
func faultEvery4(i int) uint32 {
	if i%4 != 1 {
		return 0
	}
	return []uint32{1, 0x10000, 0x80000000, 0x00f00f00}[(i/4)%4]
}

// signCheckCase is a batch of the signing kernels run directly: keys,
// nonces in [1, n) (derive_nonces 0), hashes' integers, one key off the
// curve, and a fault word per element (the key off the curve has one
// too: the kernel never reaches its base multiplication).
type signCheckCase struct {
	n, offCurve              int
	keys                     []*ecdsa.PrivateKey
	ks, es                   []*big.Int
	secrets, publics, hashes []uint32
	faults                   []uint32
}

func newSignCheckCase(t *testing.T, r *mrand.Rand, n, offCurve int) *signCheckCase {
	c := &signCheckCase{n: n, offCurve: offCurve, keys: make([]*ecdsa.PrivateKey, n), ks: make([]*big.Int, n), es: make([]*big.Int, n),
		secrets: make([]uint32, 16*n), publics: make([]uint32, 16*n), hashes: make([]uint32, 8*n), faults: make([]uint32, n)}
	random := func(size int) *big.Int {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return new(big.Int).SetBytes(b)
	}
	for i := range n {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		c.keys[i] = key
		k := random(40)
		c.ks[i] = k.Mod(k, new(big.Int).Sub(orderInt, big.NewInt(1))).Add(k, big.NewInt(1)) // in [1, n)
		c.es[i] = random(32)
		c.faults[i] = faultEvery4(i)
		y := key.Y
		if i == offCurve {
			y = new(big.Int).Add(y, big.NewInt(1))
			c.faults[i] = 1
		}
		var v [32]byte
		putRow(c.secrets[:8*n], n, i, (*[32]byte)(c.ks[i].FillBytes(v[:])))
		putRow(c.secrets[8*n:], n, i, (*[32]byte)(key.D.FillBytes(v[:])))
		putRow(c.publics[:8*n], n, i, (*[32]byte)(key.X.FillBytes(v[:])))
		putRow(c.publics[8*n:], n, i, (*[32]byte)(y.FillBytes(v[:])))
		putRow(c.hashes, n, i, (*[32]byte)(c.es[i].FillBytes(v[:])))
	}
	return c
}

// run runs ecdsa_p256_sign_point (with the case's faults), then
// ecdsa_p256_sign_finish, then with check ecdsa_p256_sign_check, and
// returns each element's (r, s).
func (c *signCheckCase) run(t *testing.T, d *device.Device, check bool) (rs, ss [][32]byte) {
	n := c.n
	src := kernels.Program("ecdsa.cl", map[string]string{"ECDSA_FAULT_INJECTION": ""})
	points := devicetest.RunKernel(t, d, src, "ecdsa_p256_sign_point", n, 4*24*n,
		device.Uint32Bytes(c.publics), device.Uint32Bytes(c.secrets), device.Uint32Bytes(c.hashes),
		device.Uint32Bytes(kernels.P256CombTable()), uint32(n), uint32(0), device.Uint32Bytes(c.faults))
	out := devicetest.RunKernel(t, d, src, "ecdsa_p256_sign_finish", n, 4*16*n,
		points, device.Uint32Bytes(c.secrets), device.Uint32Bytes(c.hashes), uint32(n), uint32(n))
	if check {
		prog, err := d.Program(src)
		require.NoError(t, err)
		kern, err := prog.Kernel("ecdsa_p256_sign_check")
		require.NoError(t, err)
		sigs, err := d.Upload(out)
		require.NoError(t, err)
		defer sigs.Release()
		var bufs []*device.Buffer
		for _, b := range [][]byte{device.Uint32Bytes(c.secrets), device.Uint32Bytes(c.hashes), device.Uint32Bytes(kernels.P256CheckTable())} {
			buf, err := d.Upload(b)
			require.NoError(t, err)
			defer buf.Release()
			bufs = append(bufs, buf)
		}
		ev, err := kern.Launch(n, 0, sigs, bufs[0], bufs[1], bufs[2], uint32(n))
		require.NoError(t, err)
		require.NoError(t, ev.Release())
		require.NoError(t, sigs.Read(0, out))
	}
	words := device.Uint32s(out, 16*n)
	rs, ss = make([][32]byte, n), make([][32]byte, n)
	for i := range n {
		getRow(&rs[i], words[:8*n], n, i)
		getRow(&ss[i], words[8*n:], n, i)
	}
	return rs, ss
}

// want is element i's (r, s) as math/big computes it from its nonce.
func (c *signCheckCase) want(i int) (r, s *big.Int) {
	x, _ := elliptic.P256().ScalarBaseMult(c.ks[i].FillBytes(make([]byte, 32)))
	r = new(big.Int).Mod(x, orderInt)
	s = new(big.Int).Mul(r, c.keys[i].D)
	s.Add(s, c.es[i]).Mul(s, new(big.Int).ModInverse(c.ks[i], orderInt)).Mod(s, orderInt)
	return r, s
}

// The fault check run directly: with a fault injected into the nonce of
// the base multiplication of every fourth element, ecdsa_p256_sign_check
// writes (0, 1), the check's verdict, for exactly those, leaves every
// other element's signature as math/big computes it, and the zeros of a
// key off the curve (which carries a fault word) as they are. Without
// the check, the same faults give other r and s, and each such
// signature, beside the right one with the same nonce, gives the private
// key: d = e·(s − s')/(s'·r − s·r') mod n (what the check is there to
// prevent, and what shows that the injection corrupts R).
func TestSignCheckKernel(t *testing.T) {
	d := devicetest.Device(t)
	c := newSignCheckCase(t, mrand.New(mrand.NewPCG(43, 44)), 29, 9)
	rs, ss := c.run(t, d, true)
	for i := range c.n {
		switch {
		case i == c.offCurve:
			require.Equal(t, [32]byte{}, rs[i], "element %d: off the curve", i)
			require.Equal(t, [32]byte{}, ss[i], "element %d: off the curve", i)
		case c.faults[i] != 0:
			require.Equal(t, [32]byte{}, rs[i], "element %d (fault %#x): r refused", i, c.faults[i])
			require.Equal(t, refusedS, ss[i], "element %d (fault %#x): s refused", i, c.faults[i])
		default:
			r, s := c.want(i)
			require.Equal(t, r, new(big.Int).SetBytes(rs[i][:]), "element %d: r", i)
			require.Equal(t, s, new(big.Int).SetBytes(ss[i][:]), "element %d: s", i)
		}
	}

	rs, ss = c.run(t, d, false)
	for i := range c.n {
		if i == c.offCurve {
			continue
		}
		r, s := c.want(i)
		gotR, gotS := new(big.Int).SetBytes(rs[i][:]), new(big.Int).SetBytes(ss[i][:])
		if c.faults[i] == 0 {
			require.Equal(t, r, gotR, "element %d: r", i)
			require.Equal(t, s, gotS, "element %d: s", i)
			continue
		}
		require.NotEqual(t, r, gotR, "element %d (fault %#x): r unchecked", i, c.faults[i])
		num := new(big.Int).Sub(s, gotS)
		num.Mul(num, c.es[i])
		den := new(big.Int).Sub(new(big.Int).Mul(gotS, r), new(big.Int).Mul(s, gotR))
		den.Mod(den, orderInt).ModInverse(den, orderInt)
		key := num.Mul(num, den).Mod(num, orderInt)
		require.Zero(t, c.keys[i].D.Cmp(key), "element %d (fault %#x): the private key from the two signatures", i, c.faults[i])
	}
}

// Deterministic signing through the engine with faults injected into the
// nonce of the base multiplication of every fourth element, in one batch
// and in several, ASN.1 and P1363: every signature is crypto/ecdsa's
// (RFC 6979) byte for byte, each corrupted element the device signed is
// counted in Stats.Faults, once, and no other (a key off the curve and a
// nil key carry fault words the kernels never use); without a fault, the
// check refuses none.
func TestSignFaultCheck(t *testing.T) {
	withFaultInjection(t)
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	require.True(t, e.inject)
	e.SetRoute(batch.RouteDevice)
	e.OnFallback(func(err error) { t.Errorf("fallback: %v", err) })
	const n, offCurve, nilKey = 120, 5, 13 // faultEvery4 corrupts both
	keys, hashes := make([]*ecdsa.PrivateKey, n), make([][]byte, n)
	injected := 0
	for i := range n {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		keys[i] = key
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		hashes[i] = h[:]
		if faultEvery4(i) != 0 && i != offCurve && i != nilKey {
			injected++
		}
	}
	off := *keys[offCurve]
	off.Y = new(big.Int).Add(off.Y, big.NewInt(1))
	keys[offCurve], keys[nilKey] = &off, nil
	check := func(name string, wantFaults int) {
		for _, form := range []Form{ASN1, P1363} {
			before := e.Stats().Faults
			sigs, errs, err := e.signBatch(form, true, keys, hashes, nil)
			require.NoError(t, err)
			require.Equal(t, int64(wantFaults), e.Stats().Faults-before, "%s, %v: faults", name, form)
			for i := range n {
				if i == offCurve || i == nilKey {
					require.Error(t, errs.Get(i), "%s, %v: element %d", name, form, i)
					continue
				}
				require.NoError(t, errs.Get(i), "%s, %v: element %d", name, form, i)
				want, err := keys[i].Sign(nil, hashes[i], crypto.SHA256)
				require.NoError(t, err)
				if form == P1363 {
					r, s, _ := parseASN1(want)
					want = make([]byte, 64)
					new(big.Int).SetBytes(r).FillBytes(want[:32])
					new(big.Int).SetBytes(s).FillBytes(want[32:])
				}
				require.Equal(t, want, sigs[i], "%s, %v: element %d (fault %#x)", name, form, i, faultEvery4(i))
			}
		}
	}
	check("no faults", 0)
	e.faults = faultEvery4
	check("one batch", injected)
	old := pipelineChunk
	pipelineChunk = 37
	defer func() { pipelineChunk = old }()
	check("batches of 37", injected)
}
