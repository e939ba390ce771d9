package aes

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"testing"
	"testing/quick"
)

// encryptReference is the kernels' round structure (kernels/aes_cipher.h)
// in Go, on the host tables and schedule: tests pin it to crypto/aes.
func encryptReference(k *Key, dst, src []byte) {
	t := aesTables()
	var s, n [4]uint32
	for c := range 4 {
		s[c] = binary.LittleEndian.Uint32(src[4*c:]) ^ k.enc[c]
	}
	for r := 1; r < k.rounds; r++ {
		for c := range 4 {
			n[c] = t.enc[s[c]&0xff] ^ rotl32(t.enc[s[(c+1)%4]>>8&0xff], 8) ^
				rotl32(t.enc[s[(c+2)%4]>>16&0xff], 16) ^ rotl32(t.enc[s[(c+3)%4]>>24], 24) ^ k.enc[4*r+c]
		}
		s = n
	}
	for c := range 4 {
		// S[x] is byte 1 of enc[x].
		n[c] = (t.enc[s[c]&0xff]>>8&0xff | t.enc[s[(c+1)%4]>>8&0xff]&0xff00 |
			t.enc[s[(c+2)%4]>>16&0xff]<<8&0xff0000 | t.enc[s[(c+3)%4]>>24]<<16&0xff000000) ^ k.enc[4*k.rounds+c]
		binary.LittleEndian.PutUint32(dst[4*c:], n[c])
	}
}

func decryptReference(k *Key, dst, src []byte) {
	t := aesTables()
	var s, n [4]uint32
	for c := range 4 {
		s[c] = binary.LittleEndian.Uint32(src[4*c:]) ^ k.dec[c]
	}
	for r := 1; r < k.rounds; r++ {
		for c := range 4 {
			n[c] = t.dec[s[c]&0xff] ^ rotl32(t.dec[s[(c+3)%4]>>8&0xff], 8) ^
				rotl32(t.dec[s[(c+2)%4]>>16&0xff], 16) ^ rotl32(t.dec[s[(c+1)%4]>>24], 24) ^ k.dec[4*r+c]
		}
		s = n
	}
	for c := range 4 {
		n[c] = (uint32(t.invSbox[s[c]&0xff]) | uint32(t.invSbox[s[(c+3)%4]>>8&0xff])<<8 |
			uint32(t.invSbox[s[(c+2)%4]>>16&0xff])<<16 | uint32(t.invSbox[s[(c+1)%4]>>24])<<24) ^ k.dec[4*k.rounds+c]
		binary.LittleEndian.PutUint32(dst[4*c:], n[c])
	}
}

func TestReferenceMatchesCryptoAES(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		f := func(seed [32]byte, block [16]byte) bool {
			key := seed[:size]
			k, err := NewKey(key)
			if err != nil {
				t.Fatal(err)
			}
			std, _ := stdaes.NewCipher(key)
			var want, got, back [16]byte
			std.Encrypt(want[:], block[:])
			encryptReference(k, got[:], block[:])
			decryptReference(k, back[:], got[:])
			return want == got && back == block
		}
		if err := quick.Check(f, &quick.Config{MaxCount: 500}); err != nil {
			t.Errorf("AES-%d: %v", size*8, err)
		}
	}
}

func TestTablesKnownValues(t *testing.T) {
	tb := aesTables()
	// FIPS-197 Figure 7 and 14.
	if tb.sbox[0x00] != 0x63 || tb.sbox[0x53] != 0xed || tb.sbox[0xff] != 0x16 {
		t.Fatalf("S-box: %#x %#x %#x", tb.sbox[0], tb.sbox[0x53], tb.sbox[0xff])
	}
	if tb.invSbox[0x63] != 0x00 || tb.invSbox[0x16] != 0xff {
		t.Fatal("inverse S-box")
	}
	words := deviceTables()
	if len(words) != 576 || words[0] != 0xa56363c6 || words[256] != 0x50a7f451 {
		t.Fatalf("device tables: %d words, %#x %#x", len(words), words[0], words[256])
	}
}

// mulSpec is Algorithm 1 of SP 800-38D, bit by bit.
func mulSpec(x, y fieldElement) fieldElement {
	var z fieldElement
	v := y
	for i := 0; i < 128; i++ {
		var bit uint64
		if i < 64 {
			bit = x.hi >> (63 - i) & 1
		} else {
			bit = x.lo >> (127 - i) & 1
		}
		if bit == 1 {
			z = z.xor(v)
		}
		lsb := v.lo & 1
		v = fieldElement{v.hi >> 1, v.lo>>1 | v.hi<<63}
		if lsb == 1 {
			v.hi ^= 0xe1 << 56
		}
	}
	return z
}

func TestFieldMultiplication(t *testing.T) {
	f := func(a, b, c, d uint64) bool {
		x, y := fieldElement{a, b}, fieldElement{c, d}
		return x.mul(y) == mulSpec(x, y)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
		t.Fatal(err)
	}
	// Edge operands: all ones, single bits at either end.
	edges := []fieldElement{{^uint64(0), ^uint64(0)}, {1 << 63, 0}, {0, 1}, {0, 0}, {1, 1 << 63}}
	for _, x := range edges {
		for _, y := range edges {
			if x.mul(y) != mulSpec(x, y) {
				t.Fatalf("%x · %x", x, y)
			}
		}
	}
}

func TestHashPowers(t *testing.T) {
	k, _ := NewKey(make([]byte, 16))
	h := k.hashPowers[0]
	acc := h
	for n := uint64(2); n < 300; n++ {
		acc = acc.mul(h)
		if got := power(&k.hashPowers, n); got != acc {
			t.Fatalf("H^%d", n)
		}
	}
}

// TestHostGCM seals with the host's GHASH and counter block and crypto/aes
// in counter mode, and compares with crypto/cipher for nonces of every
// length the tests use.
func TestHostGCM(t *testing.T) {
	for _, nonceLen := range []int{1, 8, 12, 13, 16, 64} {
		key := make([]byte, 16)
		nonce := make([]byte, nonceLen)
		msg := make([]byte, 77)
		aad := make([]byte, 21)
		for _, b := range [][]byte{key, nonce, msg, aad} {
			rand.Read(b)
		}
		k, _ := NewKey(key)
		std, _ := stdaes.NewCipher(key)
		aead, _ := cipher.NewGCMWithNonceSize(std, nonceLen)
		want := aead.Seal(nil, nonce, msg, aad)

		h := k.hashPowers[0]
		j0 := counterBlock(h, nonce)
		ctr := j0
		inc32(&ctr)
		got := make([]byte, len(msg))
		cipher.NewCTR(std, ctr[:]).XORKeyStream(got, msg)
		// GHASH(A ‖ pad ‖ C ‖ pad ‖ lengths)
		var pad [16]byte
		buf := append(append(append([]byte{}, aad...), pad[:(16-len(aad)%16)%16]...), got...)
		buf = append(buf, pad[:(16-len(got)%16)%16]...)
		y := ghash(h, buf)
		y = y.xor(fieldElement{uint64(len(aad)) * 8, uint64(len(msg)) * 8}).mul(h)
		var tag, ej0 [16]byte
		y.bytes(tag[:])
		std.Encrypt(ej0[:], j0[:])
		for i := range tag {
			tag[i] ^= ej0[i]
		}
		got = append(got, tag[:]...)
		if !bytes.Equal(got, want) {
			t.Fatalf("nonce length %d: host GCM differs from crypto/cipher", nonceLen)
		}
	}
}

func inc32(b *[16]byte) {
	binary.BigEndian.PutUint32(b[12:], binary.BigEndian.Uint32(b[12:])+1)
}
