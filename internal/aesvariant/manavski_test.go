package aesvariant

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// referenceEncrypt is the kernel's computation on one block, in Go: the
// same tables, schedule, column formula and last round. It checks the
// host half against crypto/aes without a device.
func referenceEncrypt(sched []uint32, rounds int, dst, src []byte) {
	t := tTables()
	var s, n [4]uint32
	for c := range 4 {
		s[c] = binary.LittleEndian.Uint32(src[4*c:]) ^ sched[c]
	}
	for r := 1; r < rounds; r++ {
		for c := range 4 {
			n[c] = t[s[c]&0xff] ^ t[256+(s[(c+1)&3]>>8&0xff)] ^ t[512+(s[(c+2)&3]>>16&0xff)] ^
				t[768+(s[(c+3)&3]>>24)] ^ sched[4*r+c]
		}
		s = n
	}
	for c := range 4 {
		n[c] = (t[512+(s[c]&0xff)] & 0xff) | (t[768+(s[(c+1)&3]>>8&0xff)] & 0xff00) |
			(t[s[(c+2)&3]>>16&0xff] & 0xff0000) | (t[256+(s[(c+3)&3]>>24)] & 0xff000000)
		binary.LittleEndian.PutUint32(dst[4*c:], n[c]^sched[4*rounds+c])
	}
}

func TestHostTables(t *testing.T) {
	s := sbox()
	// FIPS-197 §5.1.1 and its Figure 7
	require.Equal(t, byte(0x63), s[0x00])
	require.Equal(t, byte(0x7c), s[0x01])
	require.Equal(t, byte(0xed), s[0x53])
	require.Equal(t, byte(0x16), s[0xff])
	seen := map[byte]bool{}
	for _, v := range s {
		seen[v] = true
	}
	require.Len(t, seen, 256, "the S-box is a permutation")
	tt := tTables()
	require.Len(t, tt, 1024)
	for x := range 256 {
		for k := range 4 {
			require.Equal(t, bits.RotateLeft32(tt[x], 8*k), tt[256*k+x])
			// byte r of T(r+2 mod 4)[x] is S[x] (the last round)
			require.Equal(t, s[x], byte(tt[256*((k+2)%4)+x]>>(8*k)), "x=%#x row %d", x, k)
		}
	}
	// FIPS-197 Appendix A.1: the last word of the AES-128 example schedule
	key := []byte{0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c}
	w, rounds, err := expandKey(key)
	require.NoError(t, err)
	require.Equal(t, 10, rounds)
	require.Len(t, w, 44)
	require.Equal(t, uint32(0xb6630ca6), bits.ReverseBytes32(w[43]))
	for _, bad := range []int{0, 8, 15, 17, 33} {
		_, _, err := expandKey(make([]byte, bad))
		require.Error(t, err, bad)
	}
}

func TestReferenceMatchesCryptoAES(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		key := make([]byte, size)
		rand.Read(key)
		sched, rounds, err := expandKey(key)
		require.NoError(t, err)
		block, err := stdaes.NewCipher(key)
		require.NoError(t, err)
		src, got, want := make([]byte, 16), make([]byte, 16), make([]byte, 16)
		for range 200 {
			rand.Read(src)
			referenceEncrypt(sched, rounds, got, src)
			block.Encrypt(want, src)
			require.Equal(t, want, got, "AES-%d", 8*size)
		}
	}
}

// TestManavskiMatchesCryptoAES runs the kernel on the test device (PoCL
// in CI), both versions, AES-128/192/256, on sizes around the 1024-byte
// chunk of a block, in place and out of place, and checks that the bytes
// past n are left alone.
func TestManavskiMatchesCryptoAES(t *testing.T) {
	d := devicetest.Device(t)
	sizes := []int{16, 48, 1008, 1024, 1040, 3*1024 + 80, 64<<10 + 16, 256 << 10}
	if devicetest.Short(d) {
		sizes = sizes[:len(sizes)-1]
	}
	const slack = 1024 // bytes past n, which the kernel must not write
	for _, cfg := range []ManavskiConfig{{}, {KeyInShared: true}} {
		m, err := NewManavskiConfig(d, cfg)
		require.NoError(t, err)
		for _, keySize := range []int{16, 24, 32} {
			for _, n := range sizes {
				name := fmt.Sprintf("keyInShared=%v/AES-%d/%d", cfg.KeyInShared, 8*keySize, n)
				key := make([]byte, keySize)
				rand.Read(key)
				plain := make([]byte, n+slack)
				rand.Read(plain)
				block, err := stdaes.NewCipher(key)
				require.NoError(t, err)
				want := bytes.Clone(plain)
				for i := 0; i < n; i += 16 {
					block.Encrypt(want[i:], want[i:])
				}

				src, err := d.Upload(plain)
				require.NoError(t, err, name)
				dst, err := d.Upload(bytes.Repeat([]byte{0xa5}, n+slack))
				require.NoError(t, err, name)
				_, err = m.EncryptECBDevice(key, dst, src, n)
				require.NoError(t, err, name)
				got := make([]byte, n+slack)
				require.NoError(t, dst.Read(0, got), name)
				require.Equal(t, want[:n], got[:n], name)
				require.Equal(t, bytes.Repeat([]byte{0xa5}, slack), got[n:], "%s: bytes past n written", name)

				// in place
				_, err = m.EncryptECBDevice(key, src, src, n)
				require.NoError(t, err, name)
				require.NoError(t, src.Read(0, got), name)
				require.Equal(t, want, got, "%s in place", name)
				src.Release()
				dst.Release()
			}
		}
		require.NoError(t, m.Release())
	}
}

func TestManavskiKernelTime(t *testing.T) {
	d := devicetest.Device(t)
	m, err := NewManavski(d)
	require.NoError(t, err)
	defer m.Release()
	buf, err := d.NewBuffer(64 << 10)
	require.NoError(t, err)
	defer buf.Release()
	require.NoError(t, buf.Fill([]byte{1}, 0, buf.Size()))
	dur, err := m.EncryptECBDevice(make([]byte, 32), buf, buf, buf.Size())
	require.NoError(t, err)
	require.Positive(t, dur, "the launch event's device time")
}

func TestManavskiRejects(t *testing.T) {
	d := devicetest.Device(t)
	m, err := NewManavski(d)
	require.NoError(t, err)
	defer m.Release()
	buf, err := d.NewBuffer(1024)
	require.NoError(t, err)
	defer buf.Release()
	key := make([]byte, 16)
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"key size", func() error { _, err := m.EncryptECBDevice(make([]byte, 20), buf, buf, 16); return err }, "want 16, 24 or 32"},
		{"partial block", func() error { _, err := m.EncryptECBDevice(key, buf, buf, 17); return err }, "whole number of blocks"},
		{"negative", func() error { _, err := m.EncryptECBDevice(key, buf, buf, -16); return err }, "whole number of blocks"},
		{"too long", func() error { _, err := m.EncryptECBDevice(key, buf, buf, 2048); return err }, "do not fit"},
		{"nil", func() error { _, err := m.EncryptECBDevice(key, nil, buf, 16); return err }, "nil device buffer"},
	} {
		require.ErrorContains(t, c.call(), c.want, c.name)
	}
	dur, err := m.EncryptECBDevice(key, buf, buf, 0)
	require.NoError(t, err)
	require.Zero(t, dur)
}
