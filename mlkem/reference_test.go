package mlkem_test

import (
	"crypto/sha3"
	"math/bits"
)

// A reference of FIPS 203's arithmetic and of K-PKE, written from the
// standard's algorithms with plain modular arithmetic (no Montgomery form,
// no lazy reduction) and nothing shared with the kernels: the kernel tests
// compare each step with it, and it computes what crypto/mlkem cannot
// (the expanded decapsulation keys, FIPS 203 ipd's key generation of
// C2SP's accumulated vectors).

const q = 3329

// poly is a polynomial of 256 coefficients in [0, q).
type poly [256]uint32

// refZetas[i] is ζ^bitrev7(i) mod q, ζ = 17 (FIPS 203 §4.3).
var refZetas = func() (z [128]uint32) {
	for i := range z {
		z[i] = power(17, uint32(bits.Reverse8(uint8(i))>>1))
	}
	return
}()

// refGammas[i] is ζ^(2·bitrev7(i)+1) mod q.
var refGammas = func() (g [128]uint32) {
	for i := range g {
		g[i] = power(17, 2*uint32(bits.Reverse8(uint8(i))>>1)+1)
	}
	return
}()

// power is x^e mod q.
func power(x, e uint32) uint32 {
	r := uint32(1)
	for range e {
		r = r * x % q
	}
	return r
}

// nttRef is FIPS 203's Algorithm 9.
func nttRef(f poly) poly {
	k := 1
	for length := 128; length >= 2; length /= 2 {
		for start := 0; start < 256; start += 2 * length {
			z := refZetas[k]
			k++
			for j := start; j < start+length; j++ {
				t := z * f[j+length] % q
				f[j+length] = (f[j] + q - t) % q
				f[j] = (f[j] + t) % q
			}
		}
	}
	return f
}

// inverseNTTRef is FIPS 203's Algorithm 10.
func inverseNTTRef(f poly) poly {
	k := 127
	for length := 2; length <= 128; length *= 2 {
		for start := 0; start < 256; start += 2 * length {
			z := refZetas[k]
			k--
			for j := start; j < start+length; j++ {
				t := f[j]
				f[j] = (t + f[j+length]) % q
				f[j+length] = z * ((f[j+length] + q - t) % q) % q
			}
		}
	}
	for i := range f {
		f[i] = f[i] * 3303 % q // 128^-1
	}
	return f
}

// mulNTTRef is FIPS 203's Algorithms 11 and 12.
func mulNTTRef(f, g poly) (h poly) {
	for i, gamma := range refGammas {
		a0, a1, b0, b1 := f[2*i], f[2*i+1], g[2*i], g[2*i+1]
		h[2*i] = (a0*b0 + a1*b1%q*gamma) % q
		h[2*i+1] = (a0*b1 + a1*b0) % q
	}
	return h
}

func addRef(f, g poly) poly {
	for i := range f {
		f[i] = (f[i] + g[i]) % q
	}
	return f
}

// sampleNTTRef is FIPS 203's Algorithm 7 on ρ ‖ x ‖ y, and the number of
// XOF bytes it read.
func sampleNTTRef(rho []byte, x, y byte) (f poly, read int) {
	xof := sha3.NewSHAKE128()
	xof.Write(rho)
	xof.Write([]byte{x, y})
	var c [3]byte
	for n := 0; n < 256; {
		xof.Read(c[:])
		read += 3
		d1 := uint32(c[0]) | uint32(c[1]&15)<<8
		d2 := uint32(c[1]>>4) | uint32(c[2])<<4
		if d1 < q {
			f[n] = d1
			n++
		}
		if d2 < q && n < 256 {
			f[n] = d2
			n++
		}
	}
	return f, read
}

// cbdRef is FIPS 203's Algorithm 8 with η = 2 on PRF(seed, nonce).
func cbdRef(seed []byte, nonce byte) (f poly) {
	prf := sha3.NewSHAKE256()
	prf.Write(seed)
	prf.Write([]byte{nonce})
	b := make([]byte, 128)
	prf.Read(b)
	bit := func(i int) uint32 { return uint32(b[i/8]>>(i%8)) & 1 }
	for i := range f {
		x := bit(4*i) + bit(4*i+1)
		y := bit(4*i+2) + bit(4*i+3)
		f[i] = (x + q - y) % q
	}
	return f
}

// compressRef is round(2^d·x/q) mod 2^d, by exact integer rounding.
func compressRef(x uint32, d uint) uint32 {
	return (x<<(d+1) + q) / (2 * q) & (1<<d - 1)
}

// decompressRef is round(q·y/2^d).
func decompressRef(y uint32, d uint) uint32 {
	return (2*y*q + 1<<d) / (1 << (d + 1))
}

// encodeRef is ByteEncode_d (FIPS 203's Algorithm 5).
func encodeRef(f poly, d uint) []byte {
	out := make([]byte, 32*d)
	for i, c := range f {
		for b := range d {
			bit := uint(i)*d + b
			out[bit/8] |= byte(c>>b&1) << (bit % 8)
		}
	}
	return out
}

// decodeRef is ByteDecode_d (FIPS 203's Algorithm 6), without the
// reduction modulo q of d = 12.
func decodeRef(b []byte, d uint) (f poly) {
	for i := range f {
		for j := range d {
			bit := uint(i)*d + j
			f[i] |= uint32(b[bit/8]>>(bit%8)&1) << j
		}
	}
	return f
}

// refParams is a parameter set of the reference.
type refParams struct {
	k      int
	du, dv uint
	ctSize int
}

var (
	ref768  = refParams{k: 3, du: 10, dv: 4, ctSize: 1088}
	ref1024 = refParams{k: 4, du: 11, dv: 5, ctSize: 1568}
)

// keyGenRef is ML-KEM.KeyGen_internal with K-PKE.KeyGen: the
// encapsulation key and the expanded decapsulation key dk_PKE ‖ ek ‖ H(ek)
// ‖ z of the seed d ‖ z. draft makes it FIPS 203 ipd's, whose G takes d
// alone (final: d ‖ k).
func keyGenRef(p refParams, seed []byte, draft bool) (ek, dk []byte) {
	g := sha3.New512()
	g.Write(seed[:32])
	if !draft {
		g.Write([]byte{byte(p.k)})
	}
	rhoSigma := g.Sum(nil)
	rho, sigma := rhoSigma[:32], rhoSigma[32:]
	s := make([]poly, p.k)
	for i := range s {
		s[i] = nttRef(cbdRef(sigma, byte(i)))
	}
	for i := range p.k {
		t := nttRef(cbdRef(sigma, byte(p.k+i)))
		for j := range p.k {
			a, _ := sampleNTTRef(rho, byte(j), byte(i))
			t = addRef(t, mulNTTRef(a, s[j]))
		}
		ek = append(ek, encodeRef(t, 12)...)
	}
	ek = append(ek, rho...)
	for i := range s {
		dk = append(dk, encodeRef(s[i], 12)...)
	}
	h := sha3.Sum256(ek)
	dk = append(append(append(dk, ek...), h[:]...), seed[32:]...)
	return ek, dk
}

// encryptRef is K-PKE.Encrypt (FIPS 203's Algorithm 14).
func encryptRef(p refParams, ek, m, r []byte) []byte {
	rho := ek[384*p.k:]
	rHat := make([]poly, p.k)
	for i := range rHat {
		rHat[i] = nttRef(cbdRef(r, byte(i)))
	}
	var c []byte
	for i := range p.k {
		var u poly
		for j := range p.k {
			a, _ := sampleNTTRef(rho, byte(i), byte(j))
			u = addRef(u, mulNTTRef(a, rHat[j]))
		}
		u = addRef(inverseNTTRef(u), cbdRef(r, byte(p.k+i)))
		for x := range u {
			u[x] = compressRef(u[x], p.du)
		}
		c = append(c, encodeRef(u, p.du)...)
	}
	var v poly
	for i := range p.k {
		v = addRef(v, mulNTTRef(decodeRef(ek[384*i:], 12), rHat[i]))
	}
	v = addRef(inverseNTTRef(v), cbdRef(r, byte(2*p.k)))
	mu := decodeRef(m, 1)
	for x := range v {
		v[x] = compressRef((v[x]+decompressRef(mu[x], 1))%q, p.dv)
	}
	return append(c, encodeRef(v, p.dv)...)
}

// decapsulateRef is ML-KEM.Decaps_internal (FIPS 203's Algorithm 18) with
// K-PKE.Decrypt under the expanded key dk.
func decapsulateRef(p refParams, dk, c []byte) []byte {
	var w poly
	for i := range p.k {
		u := decodeRef(c[32*int(p.du)*i:], p.du)
		for x := range u {
			u[x] = decompressRef(u[x], p.du)
		}
		w = addRef(w, mulNTTRef(decodeRef(dk[384*i:], 12), nttRef(u)))
	}
	w = inverseNTTRef(w)
	v := decodeRef(c[32*int(p.du)*p.k:], p.dv)
	for x := range v {
		v[x] = compressRef((decompressRef(v[x], p.dv)+q-w[x])%q, 1)
	}
	m := encodeRef(v, 1)
	ek, h, z := dk[384*p.k:768*p.k+32], dk[768*p.k+32:768*p.k+64], dk[768*p.k+64:]
	g := sha3.New512()
	g.Write(m)
	g.Write(h)
	kr := g.Sum(nil)
	rejection := sha3.NewSHAKE256()
	rejection.Write(z)
	rejection.Write(c)
	kBar := make([]byte, 32)
	rejection.Read(kBar)
	if string(encryptRef(p, ek, m, kr[32:])) == string(c) {
		return kr[:32]
	}
	return kBar
}
