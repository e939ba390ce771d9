package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/sha512"
	"embed"
	"encoding/binary"
	"io"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// hmacDRBGTestKernels are the test kernels of kernels/hmac_drbg.h.
//
//go:embed testdata/kernels/hmac_drbg_test.cl
var hmacDRBGTestKernels embed.FS

// hmacDRBGTestProgram is hmac_drbg_test.cl, built on the tree's headers.
func hmacDRBGTestProgram() device.Source {
	sub, err := fs.Sub(hmacDRBGTestKernels, "testdata/kernels")
	if err != nil {
		panic(err)
	}
	return kernels.ProgramFrom(sub, "hmac_drbg_test.cl", nil)
}

// The layout of hmac_drbg_test.cl's records (its macros of the same names).
const (
	hmacTestMaxWords = 40
	hmacTestRecord   = 28 + hmacTestMaxWords + 8
	hmacDRBGTestOut  = 41
)

// numberWords appends the 32 big-endian bytes v as the kernels' 8
// little-endian words.
func numberWords(out []uint32, v []byte) []uint32 {
	var row [8]uint32
	putRow(row[:], 1, 0, (*[32]byte)(v))
	return append(out, row[:]...)
}

// numberBytes is the number of 8 little-endian words as 32 big-endian
// bytes.
func numberBytes(words []uint32) (v [32]byte) {
	getRow(&v, words, 1, 0)
	return v
}

// HMAC-SHA512 on the device (hmac_sha512_* of hmac_drbg.h, with
// sha512_update_byte and sha512_pad_to_block) is crypto/hmac's, for random
// 64-byte keys and messages of 0 to 175 bytes made of bytes, words at
// every alignment, and zeros up to the block.
func TestDeviceHMACSHA512(t *testing.T) {
	d := devicetest.Device(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const count = 400
	in := make([]uint32, 0, hmacTestRecord*count)
	want := make([][]byte, count)
	for i := range count {
		record := make([]uint32, hmacTestRecord)
		key := make([]byte, 64)
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		for j := range 16 {
			record[j] = binary.LittleEndian.Uint32(key[4*j:])
		}
		head, words, pad, tail := rng.IntN(8), rng.IntN(hmacTestMaxWords+1), rng.IntN(2), rng.IntN(8)
		record[16], record[17], record[18], record[19] = uint32(head), uint32(words), uint32(pad), uint32(tail)
		var message []byte
		for j := range head {
			record[20+j] = rng.Uint32()
			message = append(message, byte(record[20+j]))
		}
		for j := range words {
			record[28+j] = rng.Uint32()
			message = binary.LittleEndian.AppendUint32(message, record[28+j])
		}
		if pad == 1 && len(message)%128 != 0 {
			message = append(message, make([]byte, 128-len(message)%128)...)
		}
		for j := range tail {
			record[28+hmacTestMaxWords+j] = rng.Uint32()
			message = append(message, byte(record[28+hmacTestMaxWords+j]))
		}
		in = append(in, record...)
		mac := hmac.New(sha512.New, key)
		mac.Write(message)
		want[i] = mac.Sum(nil)
	}
	out := device.Uint32s(devicetest.RunKernel(t, d, hmacDRBGTestProgram(), "hmac_sha512_test", count, 4*16*count,
		device.Uint32Bytes(in), uint32(count)), 16*count)
	for i := range count {
		got := make([]byte, 0, 64)
		for _, w := range out[16*i : 16*i+16] {
			got = binary.LittleEndian.AppendUint32(got, w)
		}
		require.Equal(t, want[i], got, "case %d: head %d, words %d, pad %d, tail %d",
			i, in[hmacTestRecord*i+16], in[hmacTestRecord*i+17], in[hmacTestRecord*i+18], in[hmacTestRecord*i+19])
	}
}

// nonceCase is one input of the hedged nonce: the private key d, the hash
// and the random bytes Z.
type nonceCase struct{ d, hash, z []byte }

// nonceCases are random keys, hashes and random bytes, and the edges:
// keys 1, 2 and just below n; hashes of 0 to 66 bytes, at and above n
// (bits2octets reduces them), all ones; Z of zeros and of ones.
func nonceCases(rng *rand.Rand, count int) []nonceCase {
	randomBytes := func(n int) []byte {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		return b
	}
	minus := func(k int64) []byte {
		return new(big.Int).Sub(orderInt, big.NewInt(k)).FillBytes(make([]byte, 32))
	}
	ones := func(n int) []byte {
		b := make([]byte, n)
		for j := range b {
			b[j] = 0xff
		}
		return b
	}
	edgeKeys := [][]byte{minus(1), minus(2), minus(int64(rng.Uint32())), {31: 1}, {31: 2}}
	edgeHashes := [][]byte{nil, {0}, {1}, minus(0), minus(1), minus(-1), ones(32), ones(64), append(minus(0), 0xff)}
	lengths := []int{0, 1, 20, 31, 32, 33, 48, 64, 66}
	cases := make([]nonceCase, count)
	for i := range cases {
		c := nonceCase{z: randomBytes(32), hash: randomBytes(lengths[rng.IntN(len(lengths))])}
		for {
			c.d = randomBytes(32)
			if _, ok := scalar32(c.d, groupOrder); ok {
				break
			}
		}
		switch {
		case i < len(edgeKeys):
			c.d = edgeKeys[i]
		case i < len(edgeKeys)+len(edgeHashes):
			c.hash = edgeHashes[i-len(edgeKeys)]
		case i%50 == 0:
			c.z = make([]byte, 32)
		case i%50 == 1:
			c.z = ones(32)
		}
		cases[i] = c
	}
	return cases
}

// The device's hedged nonce (hmac_drbg_p256_nonce) is nonce.go's
// hedgedNonce, which is crypto/ecdsa's, for hundreds of keys, hashes and
// random bytes; so are the DRBG's first three outputs (the path a rejected
// candidate takes, too rare to meet: about 2^−32), bits2octets and the
// range test.
func TestDeviceHedgedNonce(t *testing.T) {
	d := devicetest.Device(t)
	cases := nonceCases(rand.New(rand.NewPCG(3, 4)), 300)
	count := len(cases)
	in := make([]uint32, 0, 24*count)
	for _, c := range cases {
		e := hashInteger(c.hash)
		in = numberWords(numberWords(numberWords(in, c.z), c.d), e[:])
	}
	out := device.Uint32s(devicetest.RunKernel(t, d, hmacDRBGTestProgram(), "hmac_drbg_test", count, 4*hmacDRBGTestOut*count,
		device.Uint32Bytes(in), uint32(count)), hmacDRBGTestOut*count)
	for i, c := range cases {
		o := out[hmacDRBGTestOut*i:]
		require.Equal(t, hedgedNonce(c.d, c.hash, c.z), numberBytes(o), "nonce, case %d (d %x, hash %x, Z %x)", i, c.d, c.hash, c.z)
		b := bits2octets(c.hash)
		drbg := newDRBG(sha512.New, c.z, nil, c.d, b[:])
		for n := range 3 {
			var candidate [32]byte
			drbg.generate(candidate[:])
			require.Equal(t, candidate, numberBytes(o[8+8*n:]), "output %d, case %d", n, i)
		}
		require.Equal(t, b, numberBytes(o[32:]), "bits2octets, case %d (hash %x)", i, c.hash)
		e := hashInteger(c.hash)
		_, inRange := scalar32(e[:], groupOrder)
		require.Equal(t, map[bool]uint32{false: 0, true: 1}[inRange], o[40], "range test, case %d (e %x)", i, e)
	}
}

// hostHedgedSignature is the signature r ‖ s of hash under key with the
// nonce hedgedNonce derives from the random bytes z: FIPS 186-5's
// equations on math/big.
func hostHedgedSignature(key *ecdsa.PrivateKey, hash, z []byte) []byte {
	var d [32]byte
	key.D.FillBytes(d[:])
	k := hedgedNonce(d[:], hash, z)
	x, _ := elliptic.P256().ScalarBaseMult(k[:])
	r := new(big.Int).Mod(x, orderInt)
	e := hashInteger(hash)
	s := new(big.Int).Mul(r, key.D)
	s.Add(s, new(big.Int).SetBytes(e[:]))
	s.Mul(s, new(big.Int).ModInverse(new(big.Int).SetBytes(k[:]), orderInt))
	s.Mod(s, orderInt)
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out
}

// With the same random bytes, the device's signatures, whose nonces the
// kernel derives, are byte for byte those of the nonces nonce.go derives
// on the host (crypto/ecdsa's), in both forms: keys random and at the
// edges, hashes of several lengths and at and above n. The engine reads
// 32 bytes per element in one read, in element order.
func TestDeviceHedgedSignaturesMatchHost(t *testing.T) {
	e, err := NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	defer e.Close()
	e.SetRoute(batch.RouteDevice)
	e.OnFallback(func(err error) { t.Errorf("CPU fallback: %v", err) })
	cases := nonceCases(rand.New(rand.NewPCG(5, 6)), 64)
	keys := make([]*ecdsa.PrivateKey, len(cases))
	hashes := make([][]byte, len(cases))
	for i, c := range cases {
		x, y := elliptic.P256().ScalarBaseMult(c.d)
		keys[i] = &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}, D: new(big.Int).SetBytes(c.d)}
		hashes[i] = c.hash
	}
	seed := [32]byte{7}
	z := make([]byte, 32*len(keys))
	_, err = io.ReadFull(rand.NewChaCha8(seed), z)
	require.NoError(t, err)

	before := e.Stats().DeviceOps
	p1363, err := e.SignP1363(rand.NewChaCha8(seed), keys, hashes)
	require.NoError(t, err)
	der, err := e.SignASN1(rand.NewChaCha8(seed), keys, hashes)
	require.NoError(t, err)
	require.Equal(t, before+2*int64(len(keys)), e.Stats().DeviceOps, "signed on the device")
	for i, key := range keys {
		want := hostHedgedSignature(key, hashes[i], z[32*i:32*i+32])
		require.Equal(t, want, p1363[i], "P1363 %d (d %x, hash %x)", i, cases[i].d, hashes[i])
		require.Equal(t, encodeASN1(want), der[i], "DER %d", i)
		require.True(t, ecdsa.VerifyASN1(&key.PublicKey, hashes[i], der[i]), "crypto/ecdsa verifies %d", i)
	}
}

// hedgedNonce is crypto/ecdsa's nonce for the private key d (32 bytes),
// the hash and the random bytes z (32): what the signing kernel derives
// (the tests compare).
func hedgedNonce(d, hash, z []byte) [32]byte {
	b := bits2octets(hash)
	return newDRBG(sha512.New, z, nil, d, b[:]).nonce()
}

// A call that the host packs in several ranges (one per core, and more
// than one tile each), with keys the kernel does not take among the
// others: with a seeded reader every signature is the host's of the same
// random bytes, in element order; with crypto/rand's, read straight into
// the rows, every signature verifies; the refused keys fail their
// elements either way.
func TestSignRanges(t *testing.T) {
	e := devicetest.Engine(t, NewEngine)
	const distinct = 7
	var keys [distinct]*ecdsa.PrivateKey
	for k := range keys {
		d := make([]byte, 32)
		binary.BigEndian.PutUint64(d[24:], uint64(1000+k))
		x, y := elliptic.P256().ScalarBaseMult(d)
		keys[k] = &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}, D: new(big.Int).SetBytes(d)}
	}
	keys[3] = &ecdsa.PrivateKey{PublicKey: keys[2].PublicKey, D: new(big.Int)} // d = 0: crypto/ecdsa refuses it
	n := 3*hostChunk + 5
	signers, hashes := make([]*ecdsa.PrivateKey, n), make([][]byte, n)
	refused := 0
	for i := range n {
		signers[i] = keys[i%distinct]
		if i%distinct == 3 {
			refused++
		}
		hashes[i] = make([]byte, 32)
		binary.LittleEndian.PutUint64(hashes[i], uint64(i))
	}
	seed := [32]byte{9}
	z := make([]byte, 32*n)
	_, err := io.ReadFull(rand.NewChaCha8(seed), z)
	require.NoError(t, err)
	seeded, seededErr := e.SignP1363(rand.NewChaCha8(seed), signers, hashes)
	fresh, freshErr := e.SignP1363(nil, signers, hashes)
	for _, err := range []error{seededErr, freshErr} {
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.Equal(t, refused, be.Failed())
	}
	for i, key := range signers {
		if i%distinct == 3 {
			require.Nil(t, seeded[i], "element %d", i)
			require.Nil(t, fresh[i], "element %d", i)
			continue
		}
		require.Equal(t, hostHedgedSignature(key, hashes[i], z[32*i:32*i+32]), seeded[i], "element %d", i)
		r, s := new(big.Int).SetBytes(fresh[i][:32]), new(big.Int).SetBytes(fresh[i][32:])
		require.True(t, ecdsa.Verify(&key.PublicKey, hashes[i], r, s), "element %d", i)
	}
}
