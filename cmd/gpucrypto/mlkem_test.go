package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// The burn-in's judgement of an ML-KEM case, without a device: a case
// computed by crypto/mlkem passes the device-only verdict and the
// comparison with crypto/mlkem (so J(z ‖ c) of mlkemRejectionKey is
// crypto/mlkem's implicit-rejection key), and each way a device can be
// wrong is caught by one or the other, naming what is wrong.
func TestMLKEMCaseJudgement(t *testing.T) {
	for _, s := range []*mlkemSet{mlkem768Set, mlkem1024Set} {
		seed := bytes.Repeat([]byte{7}, mlkem.SeedSize)
		seed[40] = 1 // z is not d
		random := bytes.Repeat([]byte{3}, mlkem.RandomnessSize)
		dk, ek, err := s.stdKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		var shared, ct []byte
		if stdEncapsulateDerandomized != nil {
			shared, ct, err = stdEncapsulateDerandomized(ek, random)
			if err != nil {
				t.Fatal(err)
			}
		} else {
			shared, ct = ek.Encapsulate()
		}
		corrupted := bytes.Clone(ct)
		corrupted[5] ^= 0x20
		rejected, err := dk.Decapsulate(corrupted)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rejected, mlkemRejectionKey(seed, corrupted)) {
			t.Fatalf("%s: J(z ‖ c) is %x, crypto/mlkem's implicit rejection %x", s.title, mlkemRejectionKey(seed, corrupted), rejected)
		}
		right := func() *mlkemCase {
			return &mlkemCase{seed: seed, random: random, ek: ek.Bytes(), ct: bytes.Clone(ct), shared: bytes.Clone(shared),
				decapsulated: bytes.Clone(shared), corrupted: corrupted, rejected: bytes.Clone(rejected)}
		}
		judge := func(c *mlkemCase) string {
			if what, _ := c.verdict(); what != "" {
				return what
			}
			return s.compare(c, s.reference(c))
		}
		if what := judge(right()); what != "" {
			t.Fatalf("%s: crypto/mlkem's own case judged wrong: %s", s.title, what)
		}
		flip := func(b []byte) { b[len(b)/2] ^= 1 }
		for _, w := range []struct {
			name, want string
			wrong      func(c *mlkemCase)
		}{
			{"key generation failed", "failed the key generation", func(c *mlkemCase) { c.keyErr = mlkem.ErrSeedLength }},
			{"decapsulation differs", "decapsulation differs from its encapsulation", func(c *mlkemCase) { flip(c.decapsulated) }},
			{"corrupted ciphertext accepted", "implicit-rejection key", func(c *mlkemCase) { c.rejected = bytes.Clone(c.shared) }},
			{"wrong rejection key", "implicit-rejection key", func(c *mlkemCase) { flip(c.rejected) }},
			{"wrong encapsulation key", "encapsulation key differs", func(c *mlkemCase) { flip(c.ek) }},
			// a device consistent with itself, but not with crypto/mlkem
			{"wrong shared key", "", func(c *mlkemCase) { flip(c.shared); flip(c.decapsulated) }},
			{"wrong ciphertext", "", func(c *mlkemCase) { flip(c.ct) }},
		} {
			c := right()
			w.wrong(c)
			what := judge(c)
			if what == "" || !strings.Contains(what, w.want) {
				t.Errorf("%s: %s: judged %q, want a failure naming %q", s.title, w.name, what, w.want)
			}
		}
	}
}
