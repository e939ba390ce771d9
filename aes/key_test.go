package aes

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// expandKeyTables is the key expansion as it was computed before it became
// constant-time: the S-box and InvMixColumns read from tables indexed by
// key bytes. It is the reference the constant-time expansion must match.
func expandKeyTables(key []byte, rounds int, enc, dec *[scheduleWords]uint32) {
	t := aesTables()
	subWord := func(w uint32) uint32 {
		return uint32(t.sbox[w&0xff]) | uint32(t.sbox[w>>8&0xff])<<8 | uint32(t.sbox[w>>16&0xff])<<16 | uint32(t.sbox[w>>24])<<24
	}
	// the dec table applied to S[b] undoes its inverse S-box
	invMixColumn := func(w uint32) uint32 {
		return t.dec[t.sbox[w&0xff]] ^ rotl32(t.dec[t.sbox[w>>8&0xff]], 8) ^
			rotl32(t.dec[t.sbox[w>>16&0xff]], 16) ^ rotl32(t.dec[t.sbox[w>>24]], 24)
	}
	nk := len(key) / 4
	n := 4 * (rounds + 1)
	for i := 0; i < nk; i++ {
		enc[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := nk; i < n; i++ {
		w := enc[i-1]
		if i%nk == 0 {
			w = subWord(rotl32(w, 24)) ^ rcon
			rcon = uint32(gfMul8(byte(rcon), 2))
		} else if nk > 6 && i%nk == 4 {
			w = subWord(w)
		}
		enc[i] = enc[i-nk] ^ w
	}
	for r := 0; r <= rounds; r++ {
		for c := 0; c < 4; c++ {
			w := enc[4*(rounds-r)+c]
			if r > 0 && r < rounds {
				w = invMixColumn(w)
			}
			dec[4*r+c] = w
		}
	}
}

// FIPS-197 Appendix A: the expansion of one key of each size, w[0] to
// w[4·(rounds+1)−1] as the standard prints them (big-endian words).
var fips197Expansions = []struct{ key, words string }{
	{"2b7e151628aed2a6abf7158809cf4f3c", "2b7e1516 28aed2a6 abf71588 09cf4f3c a0fafe17 88542cb1 23a33939 2a6c7605 " +
		"f2c295f2 7a96b943 5935807a 7359f67f 3d80477d 4716fe3e 1e237e44 6d7a883b ef44a541 a8525b7f b671253b db0bad00 " +
		"d4d1c6f8 7c839d87 caf2b8bc 11f915bc 6d88a37a 110b3efd dbf98641 ca0093fd 4e54f70e 5f5fc9f3 84a64fb2 4ea6dc4f " +
		"ead27321 b58dbad2 312bf560 7f8d292f ac7766f3 19fadc21 28d12941 575c006e d014f9a8 c9ee2589 e13f0cc8 b6630ca6"},
	{"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "8e73b0f7 da0e6452 c810f32b 809079e5 62f8ead2 522c6b7b " +
		"fe0c91f7 2402f5a5 ec12068e 6c827f6b 0e7a95b9 5c56fec2 4db7b4bd 69b54118 85a74796 e92538fd e75fad44 bb095386 " +
		"485af057 21efb14f a448f6d9 4d6dce24 aa326360 113b30e6 a25e7ed5 83b1cf9a 27f93943 6a94f767 c0a69407 d19da4e1 " +
		"ec1786eb 6fa64971 485f7032 22cb8755 e26d1352 33f0b7b3 40beeb28 2f18a259 6747d26b 458c553e a7e1466c 9411f1df " +
		"821f750a ad07d753 ca400538 8fcc5006 282d166a bc3ce7b5 e98ba06f 448c773c 8ecc7204 01002202"},
	{"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", "603deb10 15ca71be 2b73aef0 857d7781 " +
		"1f352c07 3b6108d7 2d9810a3 0914dff4 9ba35411 8e6925af a51a8b5f 2067fcde a8b09c1a 93d194cd be49846e b75d5b9a " +
		"d59aecb8 5bf3c917 fee94248 de8ebe96 b5a9328a 2678a647 98312229 2f6c79b3 812c81ad dadf48ba 24360af2 fab8b464 " +
		"98c5bfc9 bebd198e 268c3ba7 09e04214 68007bac b2df3316 96e939e4 6c518d80 c814e204 76a9fb8a 5025c02d 59c58239 " +
		"de136967 6ccc5a71 fa256395 9674ee15 5886ca5d 2e2f31d7 7e0af1fa 27cf73c3 749c47ab 18501dda e2757e4f 7401905a " +
		"cafaaae3 e4d59b34 9adf6ace bd10190d fe4890d1 e6188d0b 046df344 706c631e"},
}

// The constant-time expansion gives FIPS-197 Appendix A's words, and a
// schedule with which the kernels' round structure (encryptReference,
// decryptReference) enciphers and deciphers the Appendix C examples.
func TestKeyExpansionFIPS197(t *testing.T) {
	for _, v := range fips197Expansions {
		raw, _ := hex.DecodeString(v.key)
		k, err := NewKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range k.enc[:4*(k.rounds+1)] {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], w) // column words: byte 0 first
			got = append(got, hex.EncodeToString(b[:]))
		}
		if want := strings.Fields(v.words); !slices.Equal(got, want) {
			t.Errorf("AES-%d key %s: expansion\n%v\nwant\n%v", 8*len(raw), v.key, got, want)
		}
	}
	kats, _, err := testvectors.AESKAT()
	if err != nil {
		t.Fatal(err)
	}
	if len(kats) != 3 {
		t.Fatalf("%d FIPS-197 Appendix C examples, want 3", len(kats))
	}
	for _, v := range kats {
		raw, _ := hex.DecodeString(v.Key)
		plain, _ := hex.DecodeString(v.Plaintext)
		k, err := NewKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, back := make([]byte, 16), make([]byte, 16)
		encryptReference(k, got, plain)
		decryptReference(k, back, got)
		if hex.EncodeToString(got) != v.Ciphertext || !bytes.Equal(back, plain) {
			t.Errorf("%s %s: enciphered %x (want %s), deciphered %x", v.Section, v.Name, got, v.Ciphertext, back)
		}
	}
}

// The constant-time expansion gives the table expansion's schedules, both
// of them, for random keys of every size; its S-box and InvMixColumns give
// the tables' values for every byte.
func TestKeyExpansionMatchesTables(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		for range 2000 {
			raw := make([]byte, size)
			rand.Read(raw)
			rounds := size/4 + 6
			var enc, dec, wantEnc, wantDec [scheduleWords]uint32
			expandKey(raw, rounds, &enc, &dec)
			expandKeyTables(raw, rounds, &wantEnc, &wantDec)
			if enc != wantEnc || dec != wantDec {
				t.Fatalf("AES-%d key %x: the schedules differ from the tables'", 8*size, raw)
			}
		}
	}
	tb := aesTables()
	for x := range 256 {
		w := uint32(x) * 0x01010101
		if got, want := subWord(w), uint32(tb.sbox[x])*0x01010101; got != want {
			t.Fatalf("subWord(%#x) = %#x, want %#x", w, got, want)
		}
		for r := range 4 { // byte x alone in row r
			col := uint32(x) << (8 * r)
			// the tables' form: dec applied to S[b] undoes its inverse
			// S-box, and the zero bytes add dec[S[0]] = 0
			want := rotl32(tb.dec[tb.sbox[x]], uint(8*r))
			if got := invMixColumn(col); got != want {
				t.Fatalf("invMixColumn(%#x) = %#x, want %#x", col, got, want)
			}
		}
	}
}
