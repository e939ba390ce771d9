package hpke_test

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/hpke"
)

// A gateway's recipient key opens many messages in one call; a message
// that does not open fails alone.
func Example() {
	e, _ := hpke.Auto() // a GPU's engine, or the CPU's
	defer e.Close()
	suite := hpke.Suite{KEM: hpke.MLKEM768X25519, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}
	key, err := hpke.GenerateKey(suite.KEM)
	if err != nil {
		panic(err)
	}
	defer key.Close()

	// Senders seal to the public key (crypto/hpke's Seal gives the same
	// ciphertexts' form).
	sealed, err := e.Seal(suite, key.PublicKey(), []byte("example"), [][]byte{[]byte("first"), []byte("second"), []byte("third")})
	if err != nil {
		panic(err)
	}
	sealed[1][len(sealed[1])-1] ^= 1 // corrupted on the way

	plaintexts, err := e.Open(suite, key, []byte("example"), sealed)
	fmt.Println(err)
	for i, pt := range plaintexts {
		if pt == nil {
			fmt.Println(i, "not opened")
			continue
		}
		fmt.Printf("%d %s\n", i, pt)
	}
	// Output:
	// 1 of 3 batch elements failed; element 1: hpke: message authentication failed
	// 0 first
	// 1 not opened
	// 2 third
}
