package aes_test

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"errors"
	mrand "math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

func modeHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// pkcs7Pad pads b to a whole number of blocks (PKCS #5/#7).
func pkcs7Pad(b []byte) []byte {
	n := 16 - len(b)%16
	return append(append([]byte(nil), b...), bytes.Repeat([]byte{byte(n)}, n)...)
}

// pkcs7Unpad checks and removes PKCS #7 padding.
func pkcs7Unpad(b []byte) ([]byte, bool) {
	if len(b) == 0 || len(b)%16 != 0 {
		return nil, false
	}
	n := int(b[len(b)-1])
	if n == 0 || n > 16 {
		return nil, false
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, false
		}
	}
	return b[:len(b)-n], true
}

func cbcReference(block cipher.Block, iv, src []byte, decrypt bool) []byte {
	out := make([]byte, len(src))
	if decrypt {
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, src)
	} else {
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, src)
	}
	return out
}

func TestCBCWycheproof(t *testing.T) {
	groups, err := testvectors.WycheproofIndCPA("aes_cbc_pkcs5_test.json")
	require.NoError(t, err)
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		var cases []testvectors.IndCPATest
		var blocks []cipher.Block
		var enc, dec []aes.CBCMessage
		for _, g := range groups {
			for _, tc := range g.Tests {
				raw := modeHex(t, tc.Key)
				k, err := aes.NewKey(raw)
				require.NoError(t, err)
				std, err := stdaes.NewCipher(raw)
				require.NoError(t, err)
				iv := modeHex(t, tc.IV)
				cases = append(cases, tc)
				blocks = append(blocks, std)
				enc = append(enc, aes.CBCMessage{Key: k, IV: iv, Data: pkcs7Pad(modeHex(t, tc.Msg))})
				dec = append(dec, aes.CBCMessage{Key: k, IV: iv, Data: modeHex(t, tc.Ct)})
			}
		}
		encOut, err := e.EncryptCBC(enc)
		require.NoError(t, err)
		decOut, err := e.DecryptCBC(dec)
		require.NoError(t, err)
		valid, invalid := 0, 0
		for i, tc := range cases {
			msg := modeHex(t, tc.Msg)
			plain, ok := pkcs7Unpad(decOut[i])
			if tc.Result == "valid" {
				valid++
				require.Equal(t, dec[i].Data, encOut[i], "tcId %d: encryption", tc.TcID)
				require.True(t, ok, "tcId %d: padding", tc.TcID)
				require.Equal(t, msg, plain, "tcId %d: decryption", tc.TcID)
				continue
			}
			invalid++
			require.Equal(t, cbcReference(blocks[i], dec[i].IV, dec[i].Data, true), decOut[i], "tcId %d: raw decryption", tc.TcID)
			require.False(t, ok, "tcId %d (%s): padding accepted", tc.TcID, tc.Comment)
		}
		require.Equal(t, 72, valid)
		require.Equal(t, 144, invalid)
	})
}

// xtsTweak is a Wycheproof XTS IV (8 to 16 bytes) as a 16-byte tweak:
// a little-endian number, zero-extended.
func xtsTweak(iv []byte) []byte {
	tw := make([]byte, 16)
	copy(tw, iv)
	return tw
}

func TestXTSWycheproof(t *testing.T) {
	groups, err := testvectors.WycheproofIndCPA("aes_xts_test.json")
	require.NoError(t, err)
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		var cases []testvectors.IndCPATest
		var enc, dec []aes.XTSMessage
		sizes := map[int]int{}
		for _, g := range groups {
			for _, tc := range g.Tests {
				require.Equal(t, "valid", tc.Result)
				k, err := aes.NewXTSKey(modeHex(t, tc.Key))
				require.NoError(t, err, "tcId %d", tc.TcID)
				sizes[k.Size()]++
				tw := xtsTweak(modeHex(t, tc.IV))
				cases = append(cases, tc)
				enc = append(enc, aes.XTSMessage{Key: k, Tweak: tw, Data: modeHex(t, tc.Msg)})
				dec = append(dec, aes.XTSMessage{Key: k, Tweak: tw, Data: modeHex(t, tc.Ct)})
			}
		}
		encOut, err := e.EncryptXTS(enc)
		require.NoError(t, err)
		decOut, err := e.DecryptXTS(dec)
		require.NoError(t, err)
		for i, tc := range cases {
			require.Equal(t, dec[i].Data, encOut[i], "tcId %d (%s, key %d bytes): encryption", tc.TcID, tc.Comment, enc[i].Key.Size())
			require.Equal(t, enc[i].Data, decOut[i], "tcId %d (%s, key %d bytes): decryption", tc.TcID, tc.Comment, enc[i].Key.Size())
		}
		require.Len(t, cases, 123)
		require.Equal(t, map[int]int{32: 41, 48: 41, 64: 41}, sizes)
	})
}

func TestCBCDifferential(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		rng := mrand.New(mrand.NewPCG(5, 6))
		lengths := []int{0, 16, 32, 112, 128, 144, 256, 4096, 70000 &^ 15}
		for range 30 {
			lengths = append(lengths, 16*rng.IntN(70000/16+1))
		}
		shared, sharedStd, _ := newKey(t, 24) // one key for several messages
		var msgs []aes.CBCMessage
		var stds []cipher.Block
		for i, n := range lengths {
			k, std := shared, sharedStd
			if i%4 != 0 {
				k, std, _ = newKey(t, []int{16, 24, 32}[i%3])
			}
			msgs = append(msgs, aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(n)})
			stds = append(stds, std)
		}
		ct, err := e.EncryptCBC(msgs)
		require.NoError(t, err)
		dec := make([]aes.CBCMessage, len(msgs))
		for i, m := range msgs {
			want := cbcReference(stds[i], m.IV, m.Data, false)
			require.True(t, bytes.Equal(want, ct[i]), "message %d: AES-%d CBC encrypt, %d bytes", i, 8*m.Key.Size(), len(m.Data))
			require.NotNil(t, ct[i])
			dec[i] = aes.CBCMessage{Key: m.Key, IV: m.IV, Data: ct[i]}
		}
		pt, err := e.DecryptCBC(dec)
		require.NoError(t, err)
		for i, m := range msgs {
			require.True(t, bytes.Equal(m.Data, pt[i]), "message %d: AES-%d CBC decrypt, %d bytes", i, 8*m.Key.Size(), len(m.Data))
		}
		// one long message on its own
		m := msgs[len(msgs)-1]
		m.Data = randBytes(70000 &^ 15)
		pt, err = e.DecryptCBC([]aes.CBCMessage{m})
		require.NoError(t, err)
		require.True(t, bytes.Equal(cbcReference(stds[len(msgs)-1], m.IV, m.Data, true), pt[0]), "single CBC decryption")
	})
}

// xtsReference is XTS with ciphertext stealing (IEEE 1619-2007 §5.3.2,
// §5.4.2) built on golang.org/x/crypto/xts, which has whole blocks only:
// the stolen blocks are the last blocks of sectors one block longer.
func xtsReference(c *xts.Cipher, sector uint64, src []byte, decrypt bool) []byte {
	crypt := func(in []byte) []byte {
		out := make([]byte, len(in))
		if decrypt {
			c.Decrypt(out, in, sector)
		} else {
			c.Encrypt(out, in, sector)
		}
		return out
	}
	m, tail := len(src)/16, len(src)%16
	if tail == 0 {
		return crypt(src)
	}
	head := src[:16*(m-1)]
	last, part := src[16*(m-1):16*m], src[16*m:]
	// first: the last full block under T_{m−1} (encryption) or T_m (decryption)
	var x []byte
	if decrypt {
		x = crypt(append(append(append([]byte(nil), head...), make([]byte, 16)...), last...))[16*m:]
	} else {
		x = crypt(append(append([]byte(nil), head...), last...))[16*(m-1):]
	}
	pp := append(append([]byte(nil), part...), x[tail:]...)
	var y, out []byte
	if decrypt {
		all := crypt(append(append([]byte(nil), head...), pp...))
		y, out = all[16*(m-1):], all[:16*(m-1)]
	} else {
		all := crypt(append(append(append([]byte(nil), head...), make([]byte, 16)...), pp...))
		y, out = all[16*m:], all[:16*(m-1)]
	}
	return append(append(out, y...), x[:tail]...)
}

func TestXTSDifferential(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		rng := mrand.New(mrand.NewPCG(7, 8))
		lengths := []int{16, 17, 31, 32, 33, 47, 48, 127, 128, 129, 143, 144, 145, 512, 4096, 4097, 70000}
		for range 30 {
			lengths = append(lengths, 16+rng.IntN(70000-15))
		}
		var msgs []aes.XTSMessage
		var refs []*xts.Cipher
		var sectors []uint64
		for i, n := range lengths {
			raw := randBytes([]int{32, 48, 64}[i%3])
			k, err := aes.NewXTSKey(raw)
			require.NoError(t, err)
			ref, err := xts.NewCipher(stdaes.NewCipher, raw)
			require.NoError(t, err)
			sector := rng.Uint64()
			tw := make([]byte, 16)
			binary.LittleEndian.PutUint64(tw, sector)
			msgs = append(msgs, aes.XTSMessage{Key: k, Tweak: tw, Data: randBytes(n)})
			refs = append(refs, ref)
			sectors = append(sectors, sector)
		}
		ct, err := e.EncryptXTS(msgs)
		require.NoError(t, err)
		dec := make([]aes.XTSMessage, len(msgs))
		for i, m := range msgs {
			want := xtsReference(refs[i], sectors[i], m.Data, false)
			require.True(t, bytes.Equal(want, ct[i]), "unit %d: %d-byte key, %d bytes: encryption", i, m.Key.Size(), len(m.Data))
			dec[i] = aes.XTSMessage{Key: m.Key, Tweak: m.Tweak, Data: ct[i]}
		}
		pt, err := e.DecryptXTS(dec)
		require.NoError(t, err)
		for i, m := range msgs {
			require.True(t, bytes.Equal(xtsReference(refs[i], sectors[i], ct[i], true), pt[i]), "unit %d: reference decryption, %d bytes", i, len(m.Data))
			require.True(t, bytes.Equal(m.Data, pt[i]), "unit %d: %d-byte key, %d bytes: decryption", i, m.Key.Size(), len(m.Data))
		}
	})
}

func TestXTSSectors(t *testing.T) {
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		for _, c := range []struct {
			sector int
			count  int
			first  uint64
		}{{512, 40, 1<<40 + 3}, {4096, 5, 0}, {520, 9, 77}, {16, 33, 1<<64 - 5}, {33, 4, 9}} {
			raw := randBytes(64)
			k, err := aes.NewXTSKey(raw)
			require.NoError(t, err)
			ref, err := xts.NewCipher(stdaes.NewCipher, raw)
			require.NoError(t, err)
			src := randBytes(c.sector * c.count)
			dst := make([]byte, len(src))
			require.NoError(t, e.EncryptSectors(k, dst, src, c.sector, c.first))
			// the batch form, one unit per sector
			msgs := make([]aes.XTSMessage, c.count)
			for i := range msgs {
				tw := make([]byte, 16)
				binary.LittleEndian.PutUint64(tw, c.first+uint64(i))
				msgs[i] = aes.XTSMessage{Key: k, Tweak: tw, Data: src[i*c.sector : (i+1)*c.sector]}
			}
			units, err := e.EncryptXTS(msgs)
			require.NoError(t, err)
			require.True(t, bytes.Equal(bytes.Join(units, nil), dst), "sectors of %d bytes vs the batch form", c.sector)
			for i := range c.count {
				want := xtsReference(ref, c.first+uint64(i), src[i*c.sector:(i+1)*c.sector], false)
				require.True(t, bytes.Equal(want, dst[i*c.sector:(i+1)*c.sector]), "sector %d of %d bytes vs x/crypto/xts", i, c.sector)
			}
			// in place, both ways
			buf := append([]byte(nil), src...)
			require.NoError(t, e.EncryptSectors(k, buf, buf, c.sector, c.first))
			require.True(t, bytes.Equal(dst, buf), "sectors of %d bytes encrypted in place", c.sector)
			require.NoError(t, e.DecryptSectors(k, buf, buf, c.sector, c.first))
			require.True(t, bytes.Equal(src, buf), "sectors of %d bytes decrypted in place", c.sector)
			back := make([]byte, len(src)+7) // a longer dst is fine
			require.NoError(t, e.DecryptSectors(k, back, dst, c.sector, c.first))
			require.True(t, bytes.Equal(src, back[:len(src)]), "sectors of %d bytes decrypted", c.sector)
			for i := range msgs {
				msgs[i].Data = units[i]
			}
			plain, err := e.DecryptXTS(msgs)
			require.NoError(t, err)
			require.True(t, bytes.Equal(src, bytes.Join(plain, nil)), "sectors of %d bytes: batch decryption", c.sector)
		}
	})
}

// TestModesChunks splits CBC and XTS calls over many launches.
func TestModesChunks(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	defer aes.SetModeChunkBytes(1000)()
	var cbc []aes.CBCMessage
	var stds []cipher.Block
	var units []aes.XTSMessage
	var refs []*xts.Cipher
	for i, n := range []int{16, 992, 1008, 1024, 48, 3000, 32, 16, 5008, 160} {
		k, std, _ := newKey(t, []int{16, 24, 32}[i%3])
		cbc = append(cbc, aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(n &^ 15)})
		stds = append(stds, std)
		raw := randBytes(32)
		xk, err := aes.NewXTSKey(raw)
		require.NoError(t, err)
		ref, err := xts.NewCipher(stdaes.NewCipher, raw)
		require.NoError(t, err)
		units = append(units, aes.XTSMessage{Key: xk, Tweak: make([]byte, 16), Data: randBytes(n + i)})
		refs = append(refs, ref)
	}
	ct, err := e.EncryptCBC(cbc)
	require.NoError(t, err)
	pt, err := e.DecryptCBC(cbc)
	require.NoError(t, err)
	for i, m := range cbc {
		require.True(t, bytes.Equal(cbcReference(stds[i], m.IV, m.Data, false), ct[i]), "CBC encrypt %d", i)
		require.True(t, bytes.Equal(cbcReference(stds[i], m.IV, m.Data, true), pt[i]), "CBC decrypt %d", i)
	}
	xct, err := e.EncryptXTS(units)
	require.NoError(t, err)
	xpt, err := e.DecryptXTS(units)
	require.NoError(t, err)
	for i, m := range units {
		require.True(t, bytes.Equal(xtsReference(refs[i], 0, m.Data, false), xct[i]), "XTS encrypt %d", i)
		require.True(t, bytes.Equal(xtsReference(refs[i], 0, m.Data, true), xpt[i]), "XTS decrypt %d", i)
	}
	// sectors: several launches per call
	k, err := aes.NewXTSKey(randBytes(32))
	require.NoError(t, err)
	src := randBytes(512 * 11)
	dst := make([]byte, len(src))
	require.NoError(t, e.EncryptSectors(k, dst, src, 512, 5))
	back := make([]byte, len(src))
	require.NoError(t, e.DecryptSectors(k, back, dst, 512, 5))
	require.True(t, bytes.Equal(src, back))
	msgs := []aes.XTSMessage{{Key: k, Tweak: xtsTweak([]byte{9}), Data: dst[4*512 : 5*512]}}
	one, err := e.DecryptXTS(msgs)
	require.NoError(t, err)
	require.True(t, bytes.Equal(src[4*512:5*512], one[0]), "sector 9")
}

func TestModesBadInput(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	k, std, _ := newKey(t, 16)
	dead, _, _ := newKey(t, 16)
	dead.Close()
	iv := randBytes(16)
	good := randBytes(32)
	for _, decrypt := range []bool{false, true} {
		msgs := []aes.CBCMessage{
			{Key: k, IV: iv, Data: good},
			{Key: nil, IV: iv, Data: good},
			{Key: dead, IV: iv, Data: good},
			{Key: k, IV: iv[:15], Data: good},
			{Key: k, IV: iv, Data: good[:17]},
			{Key: k, IV: iv, Data: nil},
		}
		out, err := e.EncryptCBC(msgs)
		if decrypt {
			out, err = e.DecryptCBC(msgs)
		}
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.Len(t, be.Errs, len(msgs))
		require.NoError(t, be.Errs[0])
		require.True(t, bytes.Equal(cbcReference(std, iv, good, decrypt), out[0]))
		require.ErrorIs(t, be.Errs[1], aes.ErrNilKey)
		require.ErrorIs(t, be.Errs[2], aes.ErrKeyDestroyed)
		require.ErrorContains(t, be.Errs[3], "IV of 15 bytes")
		require.ErrorContains(t, be.Errs[4], "whole number of blocks")
		for i := 1; i <= 4; i++ {
			require.Nil(t, out[i], "element %d", i)
		}
		require.NoError(t, be.Errs[5])
		require.NotNil(t, out[5], "empty data gives an empty result")
		require.Empty(t, out[5])
	}
	out, err := e.EncryptCBC(nil)
	require.NoError(t, err)
	require.Empty(t, out)

	for _, n := range []int{0, 16, 24, 31, 33, 65, 128} {
		_, err := aes.NewXTSKey(make([]byte, n))
		require.Equal(t, aes.XTSKeySizeError(n), err)
	}
	xk, err := aes.NewXTSKey(randBytes(32))
	require.NoError(t, err)
	xdead, err := aes.NewXTSKey(randBytes(64))
	require.NoError(t, err)
	xdead.Close()
	tw := randBytes(16)
	units := []aes.XTSMessage{
		{Key: xk, Tweak: tw, Data: good[:20]},
		{Key: nil, Tweak: tw, Data: good},
		{Key: xdead, Tweak: tw, Data: good},
		{Key: xk, Tweak: tw[:8], Data: good},
		{Key: xk, Tweak: tw, Data: good[:15]},
		{Key: xk, Tweak: tw, Data: nil},
	}
	for _, decrypt := range []bool{false, true} {
		out, err := e.EncryptXTS(units)
		if decrypt {
			out, err = e.DecryptXTS(units)
		}
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.NoError(t, be.Errs[0])
		require.Len(t, out[0], 20)
		require.ErrorIs(t, be.Errs[1], aes.ErrNilKey)
		require.ErrorIs(t, be.Errs[2], aes.ErrKeyDestroyed)
		require.ErrorContains(t, be.Errs[3], "tweak of 8 bytes")
		require.ErrorContains(t, be.Errs[4], "data unit of 15 bytes")
		require.ErrorContains(t, be.Errs[5], "data unit of 0 bytes")
		for i := 1; i < len(units); i++ {
			require.Nil(t, out[i], "element %d", i)
		}
	}

	buf := make([]byte, 1024)
	require.ErrorIs(t, e.EncryptSectors(nil, buf, buf, 512, 0), aes.ErrNilKey)
	require.ErrorIs(t, e.EncryptSectors(xdead, buf, buf, 512, 0), aes.ErrKeyDestroyed)
	require.ErrorContains(t, e.EncryptSectors(xk, buf, buf, 8, 0), "data unit of 8 bytes")
	require.ErrorContains(t, e.EncryptSectors(xk, buf, buf, aes.MaxXTSDataUnit+16, 0), "data unit")
	require.ErrorContains(t, e.EncryptSectors(xk, buf, buf[:1000], 512, 0), "whole number of 512-byte sectors")
	require.ErrorContains(t, e.DecryptSectors(xk, buf[:512], buf, 512, 0), "shorter")
	require.ErrorIs(t, e.DecryptSectors(xk, buf[16:528], buf[:512], 512, 0), aes.ErrOverlap)
	require.NoError(t, e.EncryptSectors(xk, nil, nil, 512, 0))
	require.NoError(t, e.EncryptSectors(xk, buf, buf, 512, 0))
}

// TestModesFallback redoes the calls on the CPU (a device that fails) and
// compares with the device's results.
func TestModesFallback(t *testing.T) {
	dev := engine(t, aes.LayoutCompact)
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	var reports []error
	e.OnFallback(func(err error) { reports = append(reports, err) })
	failure := errors.New("simulated device failure")
	e.SetFailHook(func() error { return failure })

	var cbc []aes.CBCMessage
	var units []aes.XTSMessage
	for i, n := range []int{0, 16, 48, 1000, 4097} {
		k, _, _ := newKey(t, []int{16, 24, 32}[i%3])
		cbc = append(cbc, aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(n &^ 15)})
		xk, err := aes.NewXTSKey(randBytes([]int{32, 48, 64}[i%3]))
		require.NoError(t, err)
		units = append(units, aes.XTSMessage{Key: xk, Tweak: randBytes(16), Data: randBytes(max(n, 16+i))})
	}
	for _, f := range []func(*aes.Engine) ([][]byte, error){
		func(e *aes.Engine) ([][]byte, error) { return e.EncryptCBC(cbc) },
		func(e *aes.Engine) ([][]byte, error) { return e.DecryptCBC(cbc) },
		func(e *aes.Engine) ([][]byte, error) { return e.EncryptXTS(units) },
		func(e *aes.Engine) ([][]byte, error) { return e.DecryptXTS(units) },
	} {
		want, err := f(dev)
		require.NoError(t, err)
		got, err := f(e)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	xk := units[2].Key
	src := randBytes(520 * 6)
	want := make([]byte, len(src))
	require.NoError(t, dev.EncryptSectors(xk, want, src, 520, 1))
	got := append([]byte(nil), src...)
	require.NoError(t, e.EncryptSectors(xk, got, got, 520, 1))
	require.Equal(t, want, got)
	require.NoError(t, e.DecryptSectors(xk, got, got, 520, 1))
	require.Equal(t, src, got)
	require.Len(t, reports, 6)
	require.Equal(t, 6, int(e.Stats().Fallbacks))
	for _, r := range reports {
		require.ErrorIs(t, r, failure)
	}
}

// CBC and XTS batches write a result into its element's Out where Out's
// capacity holds it (in place too, with long CBC decryptions cut into
// pieces), allocate it elsewhere, and refuse an Out that overlaps Data
// other than in place; on the device and on the CPU.
func TestModesOut(t *testing.T) {
	for name, e := range map[string]*aes.Engine{"device": engine(t, aes.LayoutCompact), "cpu": aes.CPUEngine()} {
		t.Run(name, func(t *testing.T) {
			k, block, _ := newKey(t, 16)
			iv := randBytes(16)
			plain := randBytes(600 << 10)
			want := cbcReference(block, iv, plain, false)
			buf := bytes.Clone(plain)
			other := make([]byte, 0, len(plain))
			short := make([]byte, 0, 16)
			enc, err := e.EncryptCBC([]aes.CBCMessage{
				{Key: k, IV: iv, Data: buf, Out: buf[:0]},
				{Key: k, IV: iv, Data: plain, Out: other},
				{Key: k, IV: iv, Data: plain, Out: short},
			})
			require.NoError(t, err)
			for i, got := range enc {
				require.True(t, bytes.Equal(want, got), "encrypt %d", i)
			}
			require.Same(t, &buf[0], &enc[0][0], "not in place")
			require.Same(t, &other[:1][0], &enc[1][0], "not in Out")
			dec, err := e.DecryptCBC([]aes.CBCMessage{{Key: k, IV: iv, Data: buf, Out: buf[:0]}})
			require.NoError(t, err)
			require.True(t, bytes.Equal(plain, dec[0]))
			require.True(t, bytes.Equal(plain, buf), "not decrypted in place")
			_, err = e.DecryptCBC([]aes.CBCMessage{{Key: k, IV: iv, Data: buf[16:], Out: buf[:0]}})
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.ErrorIs(t, be.Errs[0], aes.ErrOverlap)

			raw := randBytes(32)
			xk, err := aes.NewXTSKey(raw)
			require.NoError(t, err)
			ref, err := xts.NewCipher(stdaes.NewCipher, raw)
			require.NoError(t, err)
			unit := randBytes(4100)
			wantX := xtsReference(ref, 9, unit, false)
			tweak := make([]byte, 16)
			tweak[0] = 9
			ubuf := bytes.Clone(unit)
			out, err := e.EncryptXTS([]aes.XTSMessage{{Key: xk, Tweak: tweak, Data: ubuf, Out: ubuf[:0]}, {Key: xk, Tweak: tweak, Data: unit}})
			require.NoError(t, err)
			require.True(t, bytes.Equal(wantX, out[0]) && bytes.Equal(wantX, out[1]))
			require.True(t, bytes.Equal(wantX, ubuf), "not encrypted in place")
			_, err = e.DecryptXTS([]aes.XTSMessage{{Key: xk, Tweak: tweak, Data: ubuf[1:], Out: ubuf[:0]}})
			require.ErrorAs(t, err, &be)
			require.ErrorIs(t, be.Errs[0], aes.ErrOverlap)
		})
	}
}
