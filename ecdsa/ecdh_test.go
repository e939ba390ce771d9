package ecdsa

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"math/big"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// ecdhEngines are the test device's engine (devicetest.Engine: a CPU
// fallback fails the test) and the CPU engine.
func ecdhEngines(t *testing.T) map[string]*Engine {
	t.Helper()
	return map[string]*Engine{"device": devicetest.Engine(t, NewEngine), "cpu": CPUEngine()}
}

// ecdhReference is crypto/ecdh.P256()'s answer for one element: the
// shared secret of priv and peer, or priv's public key for peer nil.
func ecdhReference(priv, peer []byte, public bool) ([]byte, error) {
	j := &ecdhJob{privs: [][]byte{priv}, peers: [][]byte{peer}}
	if public {
		j.peers = nil
	}
	return j.reference(0)
}

// requireLikeCryptoECDH checks a call's results against crypto/ecdh,
// element by element: the same bytes, and an error exactly where
// crypto/ecdh has one (a nil result then).
func requireLikeCryptoECDH(t *testing.T, privs, peers [][]byte, got [][]byte, err error, what func(i int) string) {
	t.Helper()
	var errs []error
	if err != nil {
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		errs = be.Errs
	}
	require.Len(t, got, len(privs))
	for i := range privs {
		var peer []byte
		if peers != nil {
			peer = peers[i]
		}
		want, wantErr := ecdhReference(privs[i], peer, peers == nil)
		var gotErr error
		if errs != nil {
			gotErr = errs[i]
		}
		if wantErr != nil {
			require.Error(t, gotErr, "%s: crypto/ecdh refuses it: %v", what(i), wantErr)
			require.Equal(t, wantErr.Error(), gotErr.Error(), what(i))
			require.Nil(t, got[i], what(i))
			continue
		}
		require.NoError(t, gotErr, what(i))
		require.Equal(t, want, got[i], what(i))
	}
}

// spkiPoint is the subject public key of a SubjectPublicKeyInfo in DER,
// whatever its algorithm and curve (a point as the BIT STRING holds it:
// uncompressed, compressed, or on another curve), or nil where der does
// not parse as one.
func spkiPoint(der []byte) []byte {
	var spki struct {
		Algorithm asn1.RawValue
		Key       asn1.BitString
	}
	if rest, err := asn1.Unmarshal(der, &spki); err != nil || len(rest) > 0 {
		return nil
	}
	return spki.Key.RightAlign()
}

// goPeer is the peer's key as Go's standard library reads Wycheproof's
// "asn" encoding: crypto/x509's SubjectPublicKeyInfo, then crypto/ecdh.
func goPeer(der []byte) (*stdecdh.PublicKey, error) {
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PublicKey)
	if !ok {
		return nil, x509.ErrUnsupportedAlgorithm
	}
	return ec.ECDH()
}

// Every case of Wycheproof's ecdh_secp256r1_test.json. Where crypto/x509
// and crypto/ecdh accept the case's public key (a SubjectPublicKeyInfo),
// the engines get that key's bytes and must give the case's shared
// secret; where they refuse it, the engines get the point inside the DER
// as it is (compressed, on another curve, off the curve, ...) and must
// refuse it exactly where crypto/ecdh.P256().NewPublicKey does, with the
// same error. Valid cases are accepted by Go, invalid ones refused.
func TestECDHWycheproof(t *testing.T) {
	groups, err := testvectors.WycheproofECDH("ecdh_secp256r1_test.json")
	require.NoError(t, err)
	var privs, peers [][]byte
	var ids []int
	var wants [][]byte // the case's secret where Go accepts it, else nil
	accepted, rawPoints, unparsed := 0, 0, 0
	for _, g := range groups {
		for _, c := range g.Tests {
			scalar, err := c.PrivateScalar(32)
			require.NoError(t, err, "tcId %d", c.TcID)
			public, err := hex.DecodeString(c.Public)
			require.NoError(t, err)
			shared, err := hex.DecodeString(c.Shared)
			require.NoError(t, err)
			var peer []byte
			var goErr error
			if g.Encoding == "ecpoint" {
				peer = public
				_, goErr = stdecdh.P256().NewPublicKey(peer)
			} else {
				var k *stdecdh.PublicKey
				if k, goErr = goPeer(public); goErr == nil {
					peer = k.Bytes()
				} else if peer = spkiPoint(public); peer == nil {
					unparsed++
					continue
				}
			}
			var want []byte
			if goErr == nil {
				want, goErr = ecdhReference(scalar, peer, false)
			}
			switch {
			case c.Result == "valid":
				require.NoError(t, goErr, "tcId %d (%s)", c.TcID, c.Comment)
			case c.Result == "invalid":
				require.Error(t, goErr, "tcId %d (%s)", c.TcID, c.Comment)
			}
			if goErr == nil {
				require.Equal(t, shared, want, "tcId %d", c.TcID)
				accepted++
			} else {
				rawPoints++
			}
			privs, peers, ids, wants = append(privs, scalar), append(peers, peer), append(ids, c.TcID), append(wants, want)
		}
	}
	t.Logf("%d cases: %d accepted by Go, %d refused (their raw points computed), %d whose DER holds no point", len(ids)+unparsed, accepted, rawPoints, unparsed)
	require.Positive(t, rawPoints)
	for name, e := range ecdhEngines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.ECDH(privs, peers)
			requireLikeCryptoECDH(t, privs, peers, got, err, func(i int) string { return "tcId " + strconv.Itoa(ids[i]) })
			for i, want := range wants {
				if want != nil {
					require.Equal(t, want, got[i], "tcId %d", ids[i])
				}
			}
		})
	}
}

// Random keys: shared secrets and public keys are crypto/ecdh's, on the
// device and on the CPU; and the adapter for crypto/ecdh's keys.
func TestECDHDifferential(t *testing.T) {
	const n = 300
	privs, peers := make([][]byte, n), make([][]byte, n)
	keys, peerKeys := make([]*stdecdh.PrivateKey, n), make([]*stdecdh.PublicKey, n)
	for i := range n {
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		b, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		privs[i], peers[i], keys[i], peerKeys[i] = a.Bytes(), b.PublicKey().Bytes(), a, b.PublicKey()
	}
	what := func(i int) string {
		return "element " + strconv.Itoa(i) + " (private key " + hex.EncodeToString(privs[i]) + ")"
	}
	for name, e := range ecdhEngines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.ECDH(privs, peers)
			require.NoError(t, err)
			requireLikeCryptoECDH(t, privs, peers, got, err, what)
			pubs, err := e.PublicKeys(privs)
			require.NoError(t, err)
			requireLikeCryptoECDH(t, privs, nil, pubs, err, what)
			fromKeys, err := e.ECDHKeys(keys, peerKeys)
			require.NoError(t, err)
			require.Equal(t, got, fromKeys)
		})
	}
}

// A call that the host packs and unpacks in several ranges (one per core,
// and more than one tile each), with elements crypto/ecdh refuses among
// the others (a scalar of n, a peer's point off the curve, which the
// kernel refuses): every element is crypto/ecdh's, shared secrets and
// public keys.
func TestECDHRanges(t *testing.T) {
	e := ecdhEngines(t)["device"]
	n := 3*hostChunk + 5
	privs, peers := ecdhPairs(t, n, 61, 7)
	what := func(i int) string { return "element " + strconv.Itoa(i) }
	secrets, err := e.ECDH(privs, peers)
	require.Error(t, err)
	requireLikeCryptoECDH(t, privs, peers, secrets, err, what)
	pubs, err := e.PublicKeys(privs)
	require.Error(t, err)
	requireLikeCryptoECDH(t, privs, nil, pubs, err, what)
}

// Scalars at the edges (small ones, whose digits are mostly 0 and whose
// sums meet the table's own multiples: P + P, P + (−P), O + P; n − 1 and
// its neighbours; powers of two; n/2 and n/16) with the base point, its
// negation and a random point.
func TestECDHEdgeScalars(t *testing.T) {
	nInt := new(big.Int).SetBytes(groupOrder)
	scalar := func(v *big.Int) []byte { return v.FillBytes(make([]byte, 32)) }
	var ds [][]byte
	for _, v := range []int64{1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256} {
		ds = append(ds, scalar(big.NewInt(v)))
	}
	for _, v := range []int64{1, 2, 3, 8, 9} {
		ds = append(ds, scalar(new(big.Int).Sub(nInt, big.NewInt(v))))
	}
	for _, b := range []uint{64, 128, 252, 255} {
		ds = append(ds, scalar(new(big.Int).Lsh(big.NewInt(1), b)))
	}
	ds = append(ds, scalar(new(big.Int).Rsh(nInt, 1)), scalar(new(big.Int).Rsh(nInt, 4)))
	g, err := stdecdh.P256().NewPrivateKey(scalar(big.NewInt(1)))
	require.NoError(t, err)
	negG, err := stdecdh.P256().NewPrivateKey(scalar(new(big.Int).Sub(nInt, big.NewInt(1))))
	require.NoError(t, err)
	random, err := stdecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	points := [][]byte{g.PublicKey().Bytes(), negG.PublicKey().Bytes(), random.PublicKey().Bytes()}
	var privs, peers [][]byte
	for _, d := range ds {
		for _, p := range points {
			privs, peers = append(privs, d), append(peers, p)
		}
	}
	what := func(i int) string { return "d " + hex.EncodeToString(privs[i]) + ", Q " + hex.EncodeToString(peers[i]) }
	for name, e := range ecdhEngines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.ECDH(privs, peers)
			require.NoError(t, err)
			requireLikeCryptoECDH(t, privs, peers, got, err, what)
			pubs, err := e.PublicKeys(ds)
			require.NoError(t, err)
			requireLikeCryptoECDH(t, ds, nil, pubs, err, what)
		})
	}
}

// Inputs crypto/ecdh refuses fail their elements with crypto/ecdh's
// error, beside valid ones that still compute: scalars of the wrong length,
// 0, n, n + 1, 2^256 − 1; public keys of the wrong length, compressed
// (02, 03), the point at infinity (00), other prefixes, a coordinate equal
// to p or above, points off the curve; nil. Mismatched slices fail the
// call; empty ones give an empty answer.
func TestECDHBadInput(t *testing.T) {
	key, err := stdecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	peerKey, err := stdecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	good, peer := key.Bytes(), peerKey.PublicKey().Bytes()
	nInt, pInt := new(big.Int).SetBytes(groupOrder), new(big.Int).SetBytes(fieldPrime)
	scalar := func(v *big.Int) []byte { return v.FillBytes(make([]byte, 32)) }
	withByte := func(b []byte, i int, v byte) []byte {
		b = bytes.Clone(b)
		b[i] = v
		return b
	}
	withCoordinate := func(at int, v *big.Int) []byte {
		b := bytes.Clone(peer)
		v.FillBytes(b[at : at+32])
		return b
	}
	offCurve := bytes.Clone(peer)
	offCurve[64] ^= 1
	// x + p for a point (x, y) on the curve with x < 2^256 − p: a key
	// crypto/ecdh would accept if it reduced its coordinates
	b, _ := new(big.Int).SetString("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16)
	var unreduced []byte
	for x := int64(0); unreduced == nil; x++ {
		xx := big.NewInt(x)
		rhs := new(big.Int).Exp(xx, big.NewInt(3), pInt)
		rhs.Sub(rhs, new(big.Int).Mul(big.NewInt(3), xx)).Add(rhs, b).Mod(rhs, pInt)
		if y := new(big.Int).ModSqrt(rhs, pInt); y != nil {
			point := append([]byte{4}, make([]byte, 64)...)
			xx.FillBytes(point[1:33])
			y.FillBytes(point[33:])
			_, err := stdecdh.P256().NewPublicKey(point)
			require.NoError(t, err, "(%d, %x) is on the curve", x, y)
			unreduced = bytes.Clone(point)
			new(big.Int).Add(xx, pInt).FillBytes(unreduced[1:33])
		}
	}
	compressed := append([]byte{2 + peer[64]&1}, peer[1:33]...)
	all := make([]byte, 32)
	for i := range all {
		all[i] = 0xff
	}
	cases := []struct {
		name       string
		priv, peer []byte
	}{
		{"valid", good, peer},
		{"nil private key", nil, peer},
		{"31-byte private key", good[1:], peer},
		{"33-byte private key", append([]byte{0}, good...), peer},
		{"zero scalar", make([]byte, 32), peer},
		{"scalar n", scalar(nInt), peer},
		{"scalar n + 1", scalar(new(big.Int).Add(nInt, big.NewInt(1))), peer},
		{"scalar 2^256 − 1", all, peer},
		{"scalar n − 1", scalar(new(big.Int).Sub(nInt, big.NewInt(1))), peer},
		{"nil peer", good, nil},
		{"64-byte peer", good, peer[1:]},
		{"66-byte peer", good, append(bytes.Clone(peer), 0)},
		{"compressed peer", good, compressed},
		{"compressed peer, other sign", good, withByte(compressed, 0, compressed[0]^1)},
		{"prefix 02, 65 bytes", good, withByte(peer, 0, 2)},
		{"prefix 03, 65 bytes", good, withByte(peer, 0, 3)},
		{"prefix 00, 65 bytes", good, withByte(peer, 0, 0)},
		{"prefix 06 (hybrid)", good, withByte(peer, 0, 6)},
		{"the point at infinity", good, []byte{0}},
		{"x = p", good, withCoordinate(1, pInt)},
		{"y = p", good, withCoordinate(33, pInt)},
		{"x = 2^256 − 1", good, withCoordinate(1, new(big.Int).SetBytes(all))},
		{"x + p, on the curve mod p", good, unreduced},
		{"off the curve", good, offCurve},
		{"zero point", good, append([]byte{4}, make([]byte, 64)...)},
		{"valid again", good, peer},
	}
	privs, peers := make([][]byte, len(cases)), make([][]byte, len(cases))
	for i, c := range cases {
		privs[i], peers[i] = c.priv, c.peer
	}
	what := func(i int) string { return cases[i].name }
	for name, e := range ecdhEngines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.ECDH(privs, peers)
			require.Error(t, err)
			requireLikeCryptoECDH(t, privs, peers, got, err, what)
			require.NotNil(t, got[0])
			require.Equal(t, got[0], got[len(cases)-1])
			pubs, err := e.PublicKeys(privs)
			require.Error(t, err)
			requireLikeCryptoECDH(t, privs, nil, pubs, err, what)

			_, err = e.ECDH(privs, peers[1:])
			require.Error(t, err)
			_, err = e.ECDH(nil, [][]byte{peer})
			require.Error(t, err)
			got, err = e.ECDH(nil, nil)
			require.NoError(t, err)
			require.Empty(t, got)
			got, err = e.PublicKeys(nil)
			require.NoError(t, err)
			require.Empty(t, got)
		})
	}
}

// ECDHKeys: nil keys (ErrNilKey) and keys on other curves (ErrCurve) fail
// their elements; the others are crypto/ecdh's PrivateKey.ECDH.
func TestECDHKeys(t *testing.T) {
	key, err := stdecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	peer, err := stdecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	x25519, err := stdecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	p384, err := stdecdh.P384().GenerateKey(rand.Reader)
	require.NoError(t, err)
	want, err := key.ECDH(peer.PublicKey())
	require.NoError(t, err)
	privs := []*stdecdh.PrivateKey{key, nil, key, x25519, p384, key, key}
	peers := []*stdecdh.PublicKey{peer.PublicKey(), peer.PublicKey(), nil, peer.PublicKey(), p384.PublicKey(), x25519.PublicKey(), peer.PublicKey()}
	for name, e := range ecdhEngines(t) {
		t.Run(name, func(t *testing.T) {
			got, err := e.ECDHKeys(privs, peers)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.Equal(t, [][]byte{want, nil, nil, nil, nil, nil, want}, got)
			require.NoError(t, be.Errs[0])
			require.ErrorIs(t, be.Errs[1], ErrNilKey)
			require.ErrorIs(t, be.Errs[2], ErrNilKey)
			require.ErrorIs(t, be.Errs[3], ErrCurve)
			require.ErrorIs(t, be.Errs[4], ErrCurve)
			require.ErrorIs(t, be.Errs[5], ErrCurve)
			require.NoError(t, be.Errs[6])
			_, err = e.ECDHKeys(privs, peers[1:])
			require.Error(t, err)

			pubs, err := e.ECDHPublicKeys(privs[:4])
			require.ErrorAs(t, err, &be)
			require.True(t, pubs[0].Equal(key.PublicKey()))
			require.True(t, pubs[2].Equal(key.PublicKey()))
			require.Nil(t, pubs[1])
			require.Nil(t, pubs[3])
			require.ErrorIs(t, be.Errs[1], ErrNilKey)
			require.ErrorIs(t, be.Errs[3], ErrCurve)
		})
	}
}

// ecdhPairs is n pairs of a scalar and a peer's point, the first
// distinct made anew and the others repeating them in turn; of those made
// anew, those at index 2 modulo every have their peer's point off the
// curve and those at index 4 modulo every the scalar n, both of which
// crypto/ecdh refuses.
func ecdhPairs(t *testing.T, n, distinct, every int) (privs, peers [][]byte) {
	privs, peers = make([][]byte, n), make([][]byte, n)
	for i := range n {
		if i >= distinct {
			privs[i], peers[i] = privs[i%distinct], peers[i%distinct]
			continue
		}
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		b, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		privs[i], peers[i] = a.Bytes(), b.PublicKey().Bytes()
		switch i % every {
		case 2:
			peers[i][64] ^= 1 // off the curve
		case 4:
			privs[i] = groupOrder
		}
	}
	return privs, peers
}

// A call larger than pipelineChunk runs as several device batches: each
// element's inputs and results at its own index (ch.Lo + k), with bad
// elements in every batch; the kernel answers every element it is given
// but the points off the curve.
func TestECDHManyBatches(t *testing.T) {
	e := ecdhEngines(t)["device"]
	old := pipelineChunk
	pipelineChunk = 7
	t.Cleanup(func() { pipelineChunk = old })
	const n = 40
	privs, peers := ecdhPairs(t, n, n, 5)
	batches := e.Stats().Batches
	j, err := e.ecdhBatch("ECDH P-256 shared secret", privs, peers)
	require.NoError(t, err)
	require.Equal(t, int64(n/5), j.refused.Load(), "the kernel refuses the points off the curve alone")
	err = j.errs.Err()
	require.Error(t, err)
	requireLikeCryptoECDH(t, privs, peers, j.out.Get(), err, func(i int) string { return "element " + strconv.Itoa(i) })
	pubs, err := e.PublicKeys(privs)
	require.Error(t, err)
	requireLikeCryptoECDH(t, privs, nil, pubs, err, func(i int) string { return "element " + strconv.Itoa(i) })
	require.GreaterOrEqual(t, e.Stats().Batches-batches, int64(2*6))
}

// The result check (SetResultCheck) passes on correct device results.
func TestECDHResultCheck(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.SetResultCheck(1)
	fallbacks := e.Stats().Fallbacks
	var privs, peers [][]byte
	for range 16 {
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		privs, peers = append(privs, a.Bytes()), append(peers, a.PublicKey().Bytes())
	}
	peers[3] = []byte{4}
	got, err := e.ECDH(privs, peers)
	require.Error(t, err)
	requireLikeCryptoECDH(t, privs, peers, got, err, func(i int) string { return "element " + strconv.Itoa(i) })
	_, err = e.PublicKeys(privs)
	require.NoError(t, err)
	require.Equal(t, fallbacks, e.Stats().Fallbacks)
}

// The kernels themselves, without the engine (which recomputes on the CPU
// whatever the device does not answer), the finishing kernel for groups of
// 1, 5 and all of the points: every valid element's status is
// 1 and its result crypto/ecdh's, for random scalars and ecdhKernelScalars;
// a point off the curve, and the scalars 0 and n, which the host refuses,
// have status 0.
func TestECDHKernels(t *testing.T) {
	d := devicetest.Device(t)
	edges := append(ecdhKernelScalars(), make([]byte, 32), bytes.Clone(groupOrder))
	n := len(edges) + 16
	privs, peers := make([][]byte, n), make([][]byte, n)
	secrets, points := make([]uint32, 8*n), make([]uint32, 16*n)
	for k := range n {
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		b, err := stdecdh.P256().GenerateKey(rand.Reader)
		require.NoError(t, err)
		privs[k], peers[k] = a.Bytes(), b.PublicKey().Bytes()
		if k < len(edges) {
			privs[k] = edges[k]
		}
		if k == n-1 {
			peers[k][64] ^= 1 // off the curve
		}
		putRow(secrets, n, k, (*[32]byte)(privs[k]))
		putRow(points, n, k, (*[32]byte)(peers[k][1:33]))
		putRow(points[8*n:], n, k, (*[32]byte)(peers[k][33:]))
	}
	src := kernels.Program("p256_ecdh.cl", nil)
	sharedPoints := devicetest.RunKernel(t, d, src, "ecdh_p256_shared_point", n, 4*24*n,
		device.Uint32Bytes(points), device.Uint32Bytes(secrets), uint32(n))
	publicPoints := devicetest.RunKernel(t, d, src, "ecdh_p256_public_point", n, 4*24*n,
		device.Uint32Bytes(secrets), device.Uint32Bytes(kernels.P256CombTable()), uint32(n))
	for _, size := range []int{1, 5, n} {
		groups := (n + size - 1) / size
		shared := device.Uint32s(devicetest.RunKernel(t, d, src, "ecdh_p256_finish", groups, 4*9*n,
			sharedPoints, uint32(n), uint32(groups), uint32(0)), 9*n)
		public := device.Uint32s(devicetest.RunKernel(t, d, src, "ecdh_p256_finish", groups, 4*16*n,
			publicPoints, uint32(n), uint32(groups), uint32(1)), 16*n)
		checkECDHKernels(t, privs, peers, shared, public, size)
	}
}

// ecdhKernelScalars are the scalars at the edges of ecdh_p256_mult, which
// multiplies by d' = d or n − d, whichever is odd, over 64 odd digits
// s_i ∈ {±1, …, ±15} (p256_ecdh.cl): 2 and n − 2 (d' = n − 2, the only
// keys whose last addition adds a point to itself); 1 and n − 1 (d' = 1:
// digits 1, −15, …, −15); small odd and even keys and n minus them (3 and
// n − 3 share d' = 3); 2^255 and n/2; and keys from extreme digits, with
// n minus each: 13, 15, …, 15 (the largest below n with digits 15 under
// the top one), and 15 over alternating ∓15.
func ecdhKernelScalars() [][]byte {
	nInt := new(big.Int).SetBytes(groupOrder)
	fromDigits := func(top int64, below func(i int) int64) *big.Int {
		v := big.NewInt(top)
		for i := 62; i >= 0; i-- {
			v.Lsh(v, 4)
			v.Add(v, big.NewInt(below(i)))
		}
		return v
	}
	alternate := func(first int64) func(i int) int64 {
		return func(i int) int64 {
			if i%2 == 0 {
				return first
			}
			return -first
		}
	}
	var vs []*big.Int
	for _, v := range []int64{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 30, 31, 32, 33} {
		vs = append(vs, big.NewInt(v), new(big.Int).Sub(nInt, big.NewInt(v)))
	}
	vs = append(vs, new(big.Int).Lsh(big.NewInt(1), 255), new(big.Int).Rsh(nInt, 1))
	for _, v := range []*big.Int{
		fromDigits(13, func(int) int64 { return 15 }),
		fromDigits(15, alternate(15)),  // from the top: 15, 15, −15, 15, …
		fromDigits(15, alternate(-15)), // from the top: 15, −15, 15, −15, …
	} {
		vs = append(vs, v, new(big.Int).Sub(nInt, v))
	}
	out := make([][]byte, len(vs))
	for i, v := range vs {
		if v.Sign() <= 0 || v.Cmp(nInt) >= 0 {
			panic("ecdhKernelScalars: a scalar out of [1, n)")
		}
		out[i] = v.FillBytes(make([]byte, 32))
	}
	return out
}

// checkECDHKernels checks TestECDHKernels' results for groups of size.
func checkECDHKernels(t *testing.T, privs, peers [][]byte, shared, public []uint32, size int) {
	n := len(privs)
	for k := range n {
		var x, y [32]byte
		getRow(&x, shared, n, k)
		want, err := ecdhReference(privs[k], peers[k], false)
		switch {
		case k == n-1:
			require.Error(t, err)
			require.Zero(t, shared[8*n+k], "groups of %d: status of the point off the curve", size)
			require.Equal(t, [32]byte{}, x)
		case err != nil: // 0 or n: the point at infinity; no public key either
			require.Zero(t, shared[8*n+k], "groups of %d: status of element %d (scalar 0 mod n)", size, k)
			require.Equal(t, [32]byte{}, x)
			continue
		default:
			require.Equal(t, uint32(1), shared[8*n+k], "groups of %d: status of element %d", size, k)
			require.Equal(t, want, x[:], "groups of %d: shared secret %d", size, k)
		}
		getRow(&x, public, n, k)
		getRow(&y, public[8*n:], n, k)
		want, err = ecdhReference(privs[k], nil, true)
		require.NoError(t, err)
		require.Equal(t, want, append(append([]byte{4}, x[:]...), y[:]...), "groups of %d: public key %d", size, k)
	}
}
