package ecdsa

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The two signing kernels, with the finishing one run for groups of 1, 2,
// 5, 16 and all of the batch's signatures (the engine picks the groups by
// batch size, and only large batches share inversions): each signature is
// the one math/big computes from the nonce given (derive_nonces 0), and a
// key off the curve in the middle of a group gives zeros without
// disturbing the others.
func TestSignGroups(t *testing.T) {
	d := devicetest.Device(t)
	r := mrand.New(mrand.NewPCG(7, 8))
	curve := elliptic.P256()
	order := curve.Params().N
	const n, offCurve = 37, 5
	secrets, keys, hashes := make([]uint32, 16*n), make([]uint32, 16*n), make([]uint32, 8*n)
	type element struct {
		key  *ecdsa.PrivateKey
		k, e *big.Int
	}
	elements := make([]element, n)
	for i := range elements {
		key, err := ecdsa.GenerateKey(curve, rand.Reader)
		require.NoError(t, err)
		hash := make([]byte, 32)
		for b := range hash {
			hash[b] = byte(r.Uint32())
		}
		kb := make([]byte, 40)
		for b := range kb {
			kb[b] = byte(r.Uint32())
		}
		k := new(big.Int).Mod(new(big.Int).SetBytes(kb), new(big.Int).Sub(order, big.NewInt(1)))
		k.Add(k, big.NewInt(1)) // in [1, n)
		elements[i] = element{key, k, new(big.Int).SetBytes(hash)}
		y := key.Y
		if i == offCurve {
			y = new(big.Int).Add(y, big.NewInt(1))
		}
		var v [32]byte
		putRow(secrets[:8*n], n, i, (*[32]byte)(k.FillBytes(v[:])))
		putRow(secrets[8*n:], n, i, (*[32]byte)(key.D.FillBytes(v[:])))
		putRow(keys[:8*n], n, i, (*[32]byte)(key.X.FillBytes(v[:])))
		putRow(keys[8*n:], n, i, (*[32]byte)(y.FillBytes(v[:])))
		putRow(hashes, n, i, (*[32]byte)(hash))
	}
	src := kernels.Program("ecdsa.cl", nil)
	points := devicetest.RunKernel(t, d, src, "ecdsa_p256_sign_point", n, 4*24*n,
		device.Uint32Bytes(keys), device.Uint32Bytes(secrets), device.Uint32Bytes(hashes),
		device.Uint32Bytes(kernels.P256CombTable()), uint32(n), uint32(0))
	for _, size := range []int{1, 2, 5, 16, n} {
		groups := (n + size - 1) / size
		out := devicetest.RunKernel(t, d, src, "ecdsa_p256_sign_finish", groups, 4*16*n,
			points, device.Uint32Bytes(secrets), device.Uint32Bytes(hashes), uint32(n), uint32(groups))
		sigs := device.Uint32s(out, 16*n)
		for i, el := range elements {
			var rb, sb [32]byte
			getRow(&rb, sigs[:8*n], n, i)
			getRow(&sb, sigs[8*n:], n, i)
			if i == offCurve {
				require.Equal(t, [32]byte{}, rb, "groups of %d: r of the key off the curve", size)
				require.Equal(t, [32]byte{}, sb, "groups of %d: s of the key off the curve", size)
				continue
			}
			x, _ := curve.ScalarBaseMult(el.k.FillBytes(make([]byte, 32)))
			wantR := new(big.Int).Mod(x, order)
			wantS := new(big.Int).Mul(wantR, el.key.D)
			wantS.Add(wantS, el.e).Mul(wantS, new(big.Int).ModInverse(el.k, order)).Mod(wantS, order)
			require.Equal(t, wantR, new(big.Int).SetBytes(rb[:]), "groups of %d: r of element %d", size, i)
			require.Equal(t, wantS, new(big.Int).SetBytes(sb[:]), "groups of %d: s of element %d", size, i)
			require.True(t, ecdsa.Verify(&el.key.PublicKey, el.e.FillBytes(make([]byte, 32)), wantR, wantS))
		}
	}
}

// The kernel of verification's scalars, for groups of 1, 5 and all of the
// batch's signatures: u1 = e/s and u2 = r/s mod n as math/big computes
// them, and an s of 0 (an element the host keeps) inside a group counted
// as 1 without disturbing the others.
func TestVerifyScalarGroups(t *testing.T) {
	d := devicetest.Device(t)
	r := mrand.New(mrand.NewPCG(9, 10))
	order := elliptic.P256().Params().N
	const n, zeroS = 37, 7
	random := func() *big.Int {
		b := make([]byte, 40)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return new(big.Int).Mod(new(big.Int).SetBytes(b), order)
	}
	sigs, hashes := make([]uint32, 16*n), make([]uint32, 8*n)
	rs, ss, es := make([]*big.Int, n), make([]*big.Int, n), make([]*big.Int, n)
	for i := range n {
		rs[i], ss[i], es[i] = random(), random(), random()
		if i == zeroS {
			ss[i].SetInt64(0)
		}
		var v [32]byte
		putRow(sigs[:8*n], n, i, (*[32]byte)(rs[i].FillBytes(v[:])))
		putRow(sigs[8*n:], n, i, (*[32]byte)(ss[i].FillBytes(v[:])))
		putRow(hashes, n, i, (*[32]byte)(es[i].FillBytes(v[:])))
	}
	src := kernels.Program("ecdsa.cl", nil)
	for _, size := range []int{1, 5, n} {
		groups := (n + size - 1) / size
		out := device.Uint32s(devicetest.RunKernel(t, d, src, "ecdsa_p256_verify_scalars", groups, 4*16*n,
			device.Uint32Bytes(sigs), device.Uint32Bytes(hashes), uint32(n), uint32(groups)), 16*n)
		for i := range n {
			var u1, u2 [32]byte
			getRow(&u1, out[:8*n], n, i)
			getRow(&u2, out[8*n:], n, i)
			w := big.NewInt(1)
			if i != zeroS {
				w.ModInverse(ss[i], order)
			}
			want1 := new(big.Int).Mul(es[i], w)
			want1.Mod(want1, order)
			want2 := new(big.Int).Mul(rs[i], w)
			want2.Mod(want2, order)
			require.Equal(t, want1, new(big.Int).SetBytes(u1[:]), "groups of %d: u1 of element %d", size, i)
			require.Equal(t, want2, new(big.Int).SetBytes(u2[:]), "groups of %d: u2 of element %d", size, i)
		}
	}
}
