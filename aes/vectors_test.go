package aes_test

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// Standard test vectors: FIPS-197 Appendix C (ECB), SP 800-38A F.5 (CTR),
// Wycheproof AES-GCM and AES-GMAC. Every test counts the cases it checked
// and fails on a count other than the one expected, so that a loader that
// finds nothing, or a filter that skips everything, cannot pass.

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// elementErrs are the per-element errors of a batch call that returned err
// for n elements.
func elementErrs(t testing.TB, err error, n int) []error {
	t.Helper()
	if err == nil {
		return make([]error, n)
	}
	var be *batch.Error
	require.ErrorAs(t, err, &be, "a batch call failed as a whole")
	require.Len(t, be.Errs, n)
	return be.Errs
}

func TestFIPS197(t *testing.T) {
	fips, _, err := testvectors.AESKAT()
	require.NoError(t, err)
	checked := 0
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		for _, v := range fips {
			key, pt, ct := unhex(t, v.Key), unhex(t, v.Plaintext), unhex(t, v.Ciphertext)
			k, err := aes.NewKey(key)
			require.NoError(t, err, v.Section)

			got := make([]byte, len(pt))
			require.NoError(t, e.EncryptBlocks(k, got, pt))
			require.Equal(t, ct, got, "%s: encrypt", v.Section)
			require.NoError(t, e.DecryptBlocks(k, got, ct))
			require.Equal(t, pt, got, "%s: decrypt", v.Section)

			// in place
			buf := bytes.Clone(pt)
			require.NoError(t, e.EncryptBlocks(k, buf, buf))
			require.Equal(t, ct, buf, "%s: encrypt in place", v.Section)
			require.NoError(t, e.DecryptBlocks(k, buf, buf))
			require.Equal(t, pt, buf, "%s: decrypt in place", v.Section)

			// the block many times over: more work-items than one group
			const copies = 1031
			many := make([]byte, copies*len(pt))
			require.NoError(t, e.EncryptBlocks(k, many, bytes.Repeat(pt, copies)))
			require.True(t, bytes.Equal(bytes.Repeat(ct, copies), many), "%s: encrypt ×%d", v.Section, copies)
			require.NoError(t, e.DecryptBlocks(k, many, many))
			require.True(t, bytes.Equal(bytes.Repeat(pt, copies), many), "%s: decrypt ×%d", v.Section, copies)
			checked++
		}
	})
	require.Equal(t, 3*len(layouts(t)), checked, "FIPS-197 vectors checked")
}

func TestSP80038ACTR(t *testing.T) {
	_, ctr, err := testvectors.AESKAT()
	require.NoError(t, err)
	checked := 0
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		d := e.Device()
		for _, v := range ctr {
			key, iv := unhex(t, v.Key), unhex(t, v.InitialCounterBlock)
			pt, ct := unhex(t, v.Plaintext), unhex(t, v.Ciphertext)
			k, err := aes.NewKey(key)
			require.NoError(t, err, v.Section)
			ivCopy := bytes.Clone(iv)

			// F.5.1/3/5 encrypt, F.5.2/4/6 decrypt
			got := make([]byte, len(pt))
			require.NoError(t, e.XORKeyStream(k, iv, got, pt))
			require.Equal(t, ct, got, "%s: encrypt", v.Section)
			require.NoError(t, e.XORKeyStream(k, iv, got, ct))
			require.Equal(t, pt, got, "%s: decrypt", v.Section)
			buf := bytes.Clone(pt)
			require.NoError(t, e.XORKeyStream(k, iv, buf, buf))
			require.Equal(t, ct, buf, "%s: encrypt in place", v.Section)
			require.NoError(t, e.XORKeyStream(k, iv, buf, buf))
			require.Equal(t, pt, buf, "%s: decrypt in place", v.Section)
			require.Equal(t, ivCopy, iv, "%s: the counter block argument was changed", v.Section)

			// each block alone, under the counter block the vector gives it
			for j, b := range v.Blocks {
				cb, bpt, bct := unhex(t, b.CounterBlock), unhex(t, b.Plaintext), unhex(t, b.Ciphertext)
				out := make([]byte, len(bpt))
				require.NoError(t, e.XORKeyStream(k, cb, out, bpt))
				require.Equal(t, bct, out, "%s block %d: encrypt", v.Section, j)
				require.NoError(t, e.XORKeyStream(k, cb, out, bct))
				require.Equal(t, bpt, out, "%s block %d: decrypt", v.Section, j)
			}

			// prefixes: a partial last block uses the start of its key stream
			for _, n := range []int{1, 5, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63} {
				out := make([]byte, n)
				require.NoError(t, e.XORKeyStream(k, iv, out, pt[:n]))
				require.Equal(t, ct[:n], out, "%s: encrypt the first %d bytes", v.Section, n)
				require.NoError(t, e.XORKeyStream(k, iv, out, ct[:n]))
				require.Equal(t, pt[:n], out, "%s: decrypt the first %d bytes", v.Section, n)
			}

			// device-resident, out of place and in place
			in, err := d.NewBuffer(len(pt))
			require.NoError(t, err)
			out, err := d.NewBuffer(len(pt))
			require.NoError(t, err)
			require.NoError(t, in.Write(0, pt))
			require.NoError(t, e.XORKeyStreamDevice(k, iv, out, in, len(pt)))
			require.NoError(t, out.Read(0, got))
			require.Equal(t, ct, got, "%s: device encrypt", v.Section)
			require.NoError(t, e.XORKeyStreamDevice(k, iv, out, out, len(ct)))
			require.NoError(t, out.Read(0, got))
			require.Equal(t, pt, got, "%s: device decrypt in place", v.Section)
			require.NoError(t, in.Write(0, ct))
			require.NoError(t, e.XORKeyStreamDevice(k, iv, in, in, len(ct)))
			require.NoError(t, in.Read(0, got))
			require.Equal(t, pt, got, "%s: device decrypt", v.Section)
			require.NoError(t, in.Release())
			require.NoError(t, out.Release())
			checked++
		}
	})
	require.Equal(t, 3*len(layouts(t)), checked, "SP 800-38A vectors checked")
}

// gcmCase is a Wycheproof GCM (or GMAC) case with crypto/cipher's answers,
// which the engine must reproduce.
type gcmCase struct {
	name   string // "aes_gcm tcId 7 (valid, ModifiedTag)"
	result string
	key    *aes.Key
	nonce  []byte
	aad    []byte
	msg    []byte // plaintext
	sealed []byte // the vector's ciphertext || tag

	// paramErr is NewGCMWithNonceSize's error: crypto/cipher rejects the
	// parameters (a zero-length nonce), and so must the engine, for Seal
	// and Open, with an error other than ErrOpen.
	paramErr error
	goSealed []byte // crypto/cipher's Seal
	goOpened []byte // crypto/cipher's Open of sealed (nil with goOpenErr)
	goOpenOK bool
}

func newGCMCase(t testing.TB, name, result string, flags []string, key, nonce, aad, msg, sealed []byte) gcmCase {
	t.Helper()
	c := gcmCase{name: fmt.Sprintf("%s (%s, %v)", name, result, flags), result: result,
		nonce: nonce, aad: aad, msg: msg, sealed: sealed}
	var err error
	c.key, err = aes.NewKey(key)
	require.NoError(t, err, c.name)
	block, err := stdaes.NewCipher(key)
	require.NoError(t, err, c.name)
	aead, err := cipher.NewGCMWithNonceSize(block, len(nonce))
	if err != nil {
		c.paramErr = err
	} else {
		c.goSealed = aead.Seal(nil, nonce, msg, aad)
		opened, err := aead.Open(nil, nonce, sealed, aad)
		c.goOpened, c.goOpenOK = opened, err == nil
	}
	// The vector and crypto/cipher must agree, or the case (or its
	// parsing) is wrong, not the engine.
	switch result {
	case "valid":
		require.NoError(t, c.paramErr, "%s: crypto/cipher rejects a valid case", c.name)
		require.True(t, bytes.Equal(sealed, c.goSealed), "%s: crypto/cipher's Seal differs from the vector", c.name)
		require.True(t, c.goOpenOK, "%s: crypto/cipher's Open fails", c.name)
		require.True(t, bytes.Equal(msg, c.goOpened), "%s: crypto/cipher's Open differs from the vector", c.name)
	case "invalid":
		require.True(t, c.paramErr != nil || !c.goOpenOK, "%s: crypto/cipher accepts an invalid case", c.name)
	case "acceptable": // whatever crypto/cipher does
	default:
		t.Fatalf("%s: result %q", c.name, result)
	}
	return c
}

// checkSeal checks the engine's Seal of c: out and err of its element.
func (c *gcmCase) checkSeal(t testing.TB, out []byte, err error) {
	t.Helper()
	if c.paramErr != nil {
		require.Error(t, err, "%s: Seal accepted parameters crypto/cipher rejects (%v)", c.name, c.paramErr)
		require.NotErrorIs(t, err, aes.ErrOpen, c.name)
		require.Nil(t, out, c.name)
		return
	}
	require.NoError(t, err, "%s: Seal", c.name)
	require.True(t, bytes.Equal(c.goSealed, out), "%s: Seal\n got %x\nwant %x", c.name, out, c.goSealed)
	if c.result == "valid" {
		require.True(t, bytes.Equal(c.sealed, out), "%s: Seal differs from the vector", c.name)
	}
}

// checkOpen checks the engine's Open of c.sealed.
func (c *gcmCase) checkOpen(t testing.TB, out []byte, err error) {
	t.Helper()
	switch {
	case c.paramErr != nil:
		require.Error(t, err, "%s: Open accepted parameters crypto/cipher rejects (%v)", c.name, c.paramErr)
		require.NotErrorIs(t, err, aes.ErrOpen, "%s: a parameter error, not a tag mismatch", c.name)
		require.ErrorContains(t, err, "nonce", c.name)
		require.Nil(t, out, c.name)
	case !c.goOpenOK:
		require.ErrorIs(t, err, aes.ErrOpen, "%s: Open", c.name)
		require.Nil(t, out, "%s: a failed Open released plaintext", c.name)
	default:
		require.NoError(t, err, "%s: Open", c.name)
		require.True(t, bytes.Equal(c.goOpened, out), "%s: Open\n got %x\nwant %x", c.name, out, c.goOpened)
		if c.result == "valid" {
			require.True(t, bytes.Equal(c.msg, out), "%s: Open differs from the vector", c.name)
		}
	}
}

// Expected shape of the Wycheproof GCM file (aes_gcm_test.json, 316 cases):
// every group has 128-bit tags, so nothing is skipped for its tag size;
// 6 cases have a zero-length nonce (parameter errors); 81 have a modified
// tag (ErrOpen); no case is "acceptable".
const (
	gcmCases          = 316
	gcmSkippedTagSize = 0
	gcmParamErrors    = 6
	gcmTagMismatches  = 81
	gcmAcceptable     = 0
)

// wycheproofGCM loads aes_gcm_test.json. The engine makes 16-byte tags only:
// groups with another tag size are skipped and counted.
func wycheproofGCM(t testing.TB) []gcmCase {
	t.Helper()
	groups, err := testvectors.WycheproofAEAD("aes_gcm_test.json")
	require.NoError(t, err)
	var cases []gcmCase
	skipped, params, mismatches, acceptable := 0, 0, 0, 0
	for _, g := range groups {
		if g.TagSize != 8*aes.TagSize {
			skipped += len(g.Tests)
			continue
		}
		for _, tc := range g.Tests {
			tag := unhex(t, tc.Tag)
			require.Len(t, tag, aes.TagSize, "tcId %d", tc.TcID)
			c := newGCMCase(t, fmt.Sprintf("aes_gcm tcId %d", tc.TcID), tc.Result, tc.Flags, unhex(t, tc.Key),
				unhex(t, tc.IV), unhex(t, tc.AAD), unhex(t, tc.Msg), append(unhex(t, tc.Ct), tag...))
			switch {
			case c.paramErr != nil:
				params++
			case !c.goOpenOK:
				mismatches++
			}
			if tc.Result == "acceptable" {
				acceptable++
			}
			cases = append(cases, c)
		}
	}
	require.Equal(t, gcmSkippedTagSize, skipped, "GCM cases skipped for their tag size")
	require.Equal(t, gcmCases-gcmSkippedTagSize, len(cases), "GCM cases loaded")
	require.Equal(t, gcmParamErrors, params, "GCM cases with parameters crypto/cipher rejects")
	require.Equal(t, gcmTagMismatches, mismatches, "GCM cases whose tag does not match")
	require.Equal(t, gcmAcceptable, acceptable, "acceptable GCM cases")
	return cases
}

// Expected shape of the Wycheproof GMAC file (aes_gmac_test.json, 414
// cases): 128-bit tags everywhere, 96- and 128-bit nonces; 324 cases have a
// modified tag.
const (
	gmacCases          = 414
	gmacSkippedTagSize = 0
	gmacTagMismatches  = 324
)

// wycheproofGMAC loads aes_gmac_test.json as GCM cases: GMAC is GCM with an
// empty plaintext and the message as additional data, so the sealed form
// is the tag alone.
func wycheproofGMAC(t testing.TB) []gcmCase {
	t.Helper()
	groups, err := testvectors.WycheproofMACWithIV("aes_gmac_test.json")
	require.NoError(t, err)
	var cases []gcmCase
	skipped, mismatches := 0, 0
	for _, g := range groups {
		if g.TagSize != 8*aes.TagSize {
			skipped += len(g.Tests)
			continue
		}
		for _, tc := range g.Tests {
			tag := unhex(t, tc.Tag)
			require.Len(t, tag, aes.TagSize, "tcId %d", tc.TcID)
			c := newGCMCase(t, fmt.Sprintf("aes_gmac tcId %d", tc.TcID), tc.Result, tc.Flags, unhex(t, tc.Key),
				unhex(t, tc.IV), unhex(t, tc.Msg), []byte{}, tag)
			require.NoError(t, c.paramErr, c.name)
			if !c.goOpenOK {
				mismatches++
			}
			cases = append(cases, c)
		}
	}
	require.Equal(t, gmacSkippedTagSize, skipped, "GMAC cases skipped for their tag size")
	require.Equal(t, gmacCases-gmacSkippedTagSize, len(cases), "GMAC cases loaded")
	require.Equal(t, gmacTagMismatches, mismatches, "GMAC cases whose tag does not match")
	return cases
}

// checkGCMBatch seals and opens all cases in one batch each and returns the
// number of cases checked.
func checkGCMBatch(t *testing.T, e *aes.Engine, cases []gcmCase) int {
	seals := make([]aes.Message, len(cases))
	opens := make([]aes.Message, len(cases))
	for i, c := range cases {
		seals[i] = aes.Message{Key: c.key, Nonce: c.nonce, AAD: c.aad, Data: c.msg}
		opens[i] = aes.Message{Key: c.key, Nonce: c.nonce, AAD: c.aad, Data: c.sealed}
	}
	sealed, err := e.Seal(seals)
	require.Len(t, sealed, len(cases))
	errs := elementErrs(t, err, len(cases))
	for i := range cases {
		cases[i].checkSeal(t, sealed[i], errs[i])
	}
	opened, err := e.Open(opens)
	require.Len(t, opened, len(cases))
	errs = elementErrs(t, err, len(cases))
	for i := range cases {
		cases[i].checkOpen(t, opened[i], errs[i])
	}
	// the inputs are left as they were
	for i, c := range cases {
		require.True(t, bytes.Equal(c.msg, seals[i].Data), "%s: Seal changed its input", c.name)
		require.True(t, bytes.Equal(c.sealed, opens[i].Data), "%s: Open changed its input", c.name)
	}
	return len(cases)
}

// checkGCMSingly seals and opens each case in a batch of its own.
func checkGCMSingly(t *testing.T, e *aes.Engine, cases []gcmCase) int {
	for _, c := range cases {
		sealed, err := e.Seal([]aes.Message{{Key: c.key, Nonce: c.nonce, AAD: c.aad, Data: c.msg}})
		require.Len(t, sealed, 1)
		c.checkSeal(t, sealed[0], elementErrs(t, err, 1)[0])
		opened, err := e.Open([]aes.Message{{Key: c.key, Nonce: c.nonce, AAD: c.aad, Data: c.sealed}})
		require.Len(t, opened, 1)
		c.checkOpen(t, opened[0], elementErrs(t, err, 1)[0])
	}
	return len(cases)
}

// checkGCMDevice runs each case through SealDevice and OpenDevice.
func checkGCMDevice(t *testing.T, e *aes.Engine, cases []gcmCase) int {
	d := e.Device()
	size := 16
	for _, c := range cases {
		size = max(size, len(c.msg))
	}
	in, err := d.NewBuffer(size)
	require.NoError(t, err)
	defer in.Release()
	out, err := d.NewBuffer(size)
	require.NoError(t, err)
	defer out.Release()
	garbage := bytes.Repeat([]byte{0xa5}, size)
	for _, c := range cases {
		n := len(c.msg)
		ct, tag := c.sealed[:n], c.sealed[n:]

		require.NoError(t, in.Write(0, c.msg))
		gotTag, err := e.SealDevice(c.key, c.nonce, c.aad, out, in, n)
		if c.paramErr != nil {
			require.Error(t, err, "%s: SealDevice", c.name)
			require.NotErrorIs(t, err, aes.ErrOpen, c.name)
		} else {
			require.NoError(t, err, "%s: SealDevice", c.name)
			got := make([]byte, n)
			require.NoError(t, out.Read(0, got))
			require.True(t, bytes.Equal(c.goSealed, append(got, gotTag...)), "%s: SealDevice", c.name)
		}

		require.NoError(t, in.Write(0, ct))
		require.NoError(t, out.Write(0, garbage))
		err = e.OpenDevice(c.key, c.nonce, c.aad, tag, out, in, n)
		got := make([]byte, n)
		require.NoError(t, out.Read(0, got))
		switch {
		case c.paramErr != nil:
			require.Error(t, err, "%s: OpenDevice", c.name)
			require.NotErrorIs(t, err, aes.ErrOpen, c.name)
		case !c.goOpenOK:
			require.ErrorIs(t, err, aes.ErrOpen, "%s: OpenDevice", c.name)
			require.True(t, bytes.Equal(make([]byte, n), got), "%s: a failed OpenDevice released plaintext", c.name)
		default:
			require.NoError(t, err, "%s: OpenDevice", c.name)
			require.True(t, bytes.Equal(c.goOpened, got), "%s: OpenDevice", c.name)
		}
	}
	return len(cases)
}

func TestWycheproofGCM(t *testing.T) {
	testGCMVectors(t, wycheproofGCM(t), gcmCases-gcmSkippedTagSize)
}

func TestWycheproofGMAC(t *testing.T) {
	testGCMVectors(t, wycheproofGMAC(t), gmacCases-gmacSkippedTagSize)
}

func testGCMVectors(t *testing.T, cases []gcmCase, want int) {
	require.Len(t, cases, want)
	require.NotZero(t, want)
	checks := map[string]func(*testing.T, *aes.Engine, []gcmCase) int{
		"batch":  checkGCMBatch,
		"singly": checkGCMSingly,
		"device": checkGCMDevice,
	}
	checked := map[string]int{}
	eachLayout(t, func(t *testing.T, e *aes.Engine) {
		for _, name := range []string{"batch", "singly", "device"} {
			t.Run(name, func(t *testing.T) { checked[name] += checks[name](t, e, cases) })
		}
	})
	for name := range checks {
		require.Equal(t, want*len(layouts(t)), checked[name], "%s: cases checked", name)
	}
}
