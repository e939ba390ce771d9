package rsa

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// The DigestInfo prefixes built from the OIDs are RFC 8017 §9.2 note 1's.
func TestDigestInfoPrefixes(t *testing.T) {
	rfc := map[crypto.Hash]string{
		crypto.MD5:        "3020300c06082a864886f70d020505000410",
		crypto.SHA1:       "3021300906052b0e03021a05000414",
		crypto.SHA224:     "302d300d06096086480165030402040500041c",
		crypto.SHA256:     "3031300d060960864801650304020105000420",
		crypto.SHA384:     "3041300d060960864801650304020205000430",
		crypto.SHA512:     "3051300d060960864801650304020305000440",
		crypto.SHA512_224: "302d300d06096086480165030402050500041c",
		crypto.SHA512_256: "3031300d060960864801650304020605000420",
		crypto.MD5SHA1:    "",
		0:                 "",
	}
	for h, want := range rfc {
		got, err := pkcs1v15Prefix(h)
		require.NoError(t, err)
		require.Equal(t, want, hex.EncodeToString(got), "%v", h)
	}
	_, err := pkcs1v15Prefix(crypto.RIPEMD160)
	require.ErrorContains(t, err, "not supported")
}

func TestEMSAPKCS1v15(t *testing.T) {
	d := bytes.Repeat([]byte{0xab}, 32)
	prefix, _ := pkcs1v15Prefix(crypto.SHA256)
	em, err := emsaPKCS1v15(crypto.SHA256, prefix, d, 64)
	require.NoError(t, err)
	want := "0001" + "ffffffffffffffffffff" + "00" + hex.EncodeToString(prefix) + hex.EncodeToString(d)
	require.Equal(t, want, hex.EncodeToString(em))
	_, err = emsaPKCS1v15(crypto.SHA256, prefix, d, 61) // PS would be 7 bytes
	require.Equal(t, ErrMessageTooLong, err)
	_, err = emsaPKCS1v15(crypto.SHA256, prefix, d[:31], 64)
	require.Equal(t, errNotHashed, err)
	em, err = emsaPKCS1v15(0, nil, nil, 11) // raw, empty
	require.NoError(t, err)
	require.Equal(t, "0001"+"ffffffffffffffff"+"00", hex.EncodeToString(em))
}

func TestUnpadPKCS1v15(t *testing.T) {
	mk := func(head string, ps int, msg string) []byte {
		b, _ := hex.DecodeString(head)
		b = append(b, bytes.Repeat([]byte{0x5a}, ps)...)
		m, _ := hex.DecodeString(msg)
		return append(b, m...)
	}
	for _, c := range []struct {
		name  string
		em    []byte
		valid int
		msg   string
	}{
		{"valid", mk("0002", 20, "00cafe"), 1, "cafe"},
		{"PS of 8", mk("0002", 8, "00cafe"), 1, "cafe"},
		{"empty message", mk("0002", 20, "00"), 1, ""},
		{"zero in message", mk("0002", 9, "000100ff"), 1, "0100ff"},
		{"PS of 7", mk("0002", 7, "00cafe"), 0, ""},
		{"first byte", mk("0102", 20, "00cafe"), 0, ""},
		{"block type 1", mk("0001", 20, "00cafe"), 0, ""},
		{"no separator", mk("0002", 20, "cafe"), 0, ""},
		{"zero at start of PS", mk("000200", 20, "00cafe"), 0, ""},
		{"too short", mk("0002", 8, ""), 0, ""},
	} {
		valid, start := unpadPKCS1v15(c.em)
		require.Equal(t, c.valid, valid, c.name)
		if valid == 1 {
			require.Equal(t, c.msg, hex.EncodeToString(c.em[start:]), c.name)
		} else {
			require.Equal(t, len(c.em), start, c.name)
		}
	}
	// session keys: copied only when valid and of the exact length
	for _, c := range []struct {
		em   []byte
		copy bool
	}{
		{mk("0002", 20, "00"+"0102030405060708"), true},
		{mk("0002", 21, "00"+"02030405060708"), false},
		{mk("0002", 19, "00"+"ff0102030405060708"), false},
		{mk("0003", 20, "00"+"0102030405060708"), false},
	} {
		key := bytes.Repeat([]byte{0xee}, 8)
		sessionKeyPKCS1v15(c.em, key)
		if c.copy {
			require.Equal(t, "0102030405060708", hex.EncodeToString(key))
		} else {
			require.Equal(t, bytes.Repeat([]byte{0xee}, 8), key)
		}
	}
}

// oaepMask builds EM from a chosen DB and seed, so that tests can write any
// (bad) padding.
func oaepMask(db, seed []byte) []byte {
	em := append(append([]byte{0}, seed...), db...)
	mgf1XOR(em[1+len(seed):], sha256.New(), em[1:1+len(seed)])
	mgf1XOR(em[1:1+len(seed)], sha256.New(), em[1+len(seed):])
	return em
}

func TestOAEPUnpad(t *testing.T) {
	const k = 128
	label := []byte("label")
	lHash := sha256.Sum256(label)
	seed := bytes.Repeat([]byte{0x11}, 32)
	db := func(ps []byte, msg string) []byte {
		m, _ := hex.DecodeString(msg)
		d := append(append([]byte{}, lHash[:]...), ps...)
		d = append(d, 0x01)
		d = append(d, m...)
		if len(d) != k-33 {
			panic("bad test DB length")
		}
		return d
	}
	zeros := func(n int) []byte { return make([]byte, n) }
	for _, c := range []struct {
		name  string
		em    []byte
		valid int
		msg   string
	}{
		{"valid", oaepMask(db(zeros(60), "cafe"), seed), 1, "cafe"},
		{"no PS", oaepMask(db(nil, hex.EncodeToString(bytes.Repeat([]byte{7}, 62))), seed), 1, hex.EncodeToString(bytes.Repeat([]byte{7}, 62))},
		{"empty message", oaepMask(db(zeros(62), ""), seed), 1, ""},
		{"01 in message", oaepMask(db(zeros(59), "0101ff"), seed), 1, "0101ff"},
		{"nonzero in PS", oaepMask(db(append(zeros(30), append([]byte{2}, zeros(29)...)...), "cafe"), seed), 0, ""},
		{"no separator", oaepMask(append(lHash[:], zeros(63)...), seed), 0, ""},
		{"wrong lHash", oaepMask(append([]byte{lHash[0] ^ 1}, db(zeros(60), "cafe")[1:]...), seed), 0, ""},
	} {
		em := bytes.Clone(c.em)
		valid, start := oaepUnpad(sha256.New(), sha256.New(), em, label)
		require.Equal(t, c.valid, valid, c.name)
		if valid == 1 {
			require.Equal(t, c.msg, hex.EncodeToString(em[start:]), c.name)
		} else {
			require.Equal(t, k, start, c.name)
		}
	}
	em := oaepMask(db(zeros(60), "cafe"), seed)
	em[0] = 1
	valid, _ := oaepUnpad(sha256.New(), sha256.New(), em, label)
	require.Equal(t, 0, valid, "first byte")
	// oaepPad builds exactly what oaepUnpad takes apart.
	em = oaepPad(sha256.New(), sha256.New(), []byte{0xca, 0xfe}, label, seed, k)
	require.Equal(t, oaepMask(db(zeros(60), "cafe"), seed), em)
}

func TestEMSAPSS(t *testing.T) {
	mHash := bytes.Repeat([]byte{0x42}, 32)
	salt := []byte("0123456789")
	for _, emBits := range []int{1023, 1024, 1025, 1030} {
		em, err := emsaPSSEncode(sha256.New(), mHash, salt, emBits)
		require.NoError(t, err)
		require.Len(t, em, (emBits+7)/8)
		if top := 8*len(em) - emBits; top > 0 {
			require.Zero(t, em[0]>>(8-top), "top bits cleared")
		}
		for _, sLen := range []int{saltAuto, len(salt)} {
			require.NoError(t, emsaPSSVerify(sha256.New(), mHash, bytes.Clone(em), emBits, sLen), "emBits %d", emBits)
		}
		require.Equal(t, ErrVerification, emsaPSSVerify(sha256.New(), mHash, bytes.Clone(em), emBits, len(salt)+1))
		require.Equal(t, ErrVerification, emsaPSSVerify(sha256.New(), mHash[1:], bytes.Clone(em), emBits, saltAuto))
		bad := bytes.Clone(em)
		bad[len(bad)-1] = 0xbd
		require.Equal(t, ErrVerification, emsaPSSVerify(sha256.New(), mHash, bad, emBits, saltAuto))
		if top := 8*len(em) - emBits; top > 0 {
			bad = bytes.Clone(em)
			bad[0] |= 0x80
			require.Equal(t, ErrVerification, emsaPSSVerify(sha256.New(), mHash, bad, emBits, saltAuto))
		}
		bad = bytes.Clone(em)
		bad[5] ^= 1
		require.Equal(t, ErrVerification, emsaPSSVerify(sha256.New(), mHash, bad, emBits, saltAuto))
	}
	_, err := emsaPSSEncode(sha256.New(), mHash, make([]byte, 100), 8*(32+100+1))
	require.Equal(t, ErrMessageTooLong, err)
	_, err = emsaPSSEncode(sha256.New(), mHash[:31], nil, 1024)
	require.Equal(t, errPSSInput, err)
}

type zeroHeavyReader struct{ n int }

func (r *zeroHeavyReader) Read(p []byte) (int, error) {
	for i := range p {
		r.n++
		if r.n%3 == 0 {
			p[i] = byte(r.n)
		} else {
			p[i] = 0
		}
	}
	return len(p), nil
}

func TestReadNonZero(t *testing.T) {
	b := make([]byte, 300)
	require.NoError(t, readNonZero(&zeroHeavyReader{}, b))
	require.NotContains(t, b, byte(0))
	require.Error(t, readNonZero(bytes.NewReader([]byte{1, 0, 2}), make([]byte, 3)))
	var _ io.Reader = (*zeroHeavyReader)(nil)
}
