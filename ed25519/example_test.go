package ed25519_test

import (
	stded25519 "crypto/ed25519"
	"fmt"

	"github.com/gpucrypto/gpucrypto/ed25519"
)

// Signing and verifying a batch: on a GPU when there is one, else on the
// CPU with crypto/ed25519; the results are the same either way.
func Example() {
	e, _ := ed25519.Auto() // the Choice says which engine and why
	defer e.Close()
	seeds := [][]byte{make([]byte, 32), make([]byte, 32)}
	seeds[1][0] = 1
	keys, err := e.NewKeysFromSeeds(seeds)
	if err != nil {
		panic(err)
	}
	msgs := [][]byte{[]byte("first"), []byte("second")}
	sigs, err := e.Sign(keys, msgs, nil)
	if err != nil {
		panic(err)
	}
	pubs := []stded25519.PublicKey{keys[0].Public().(stded25519.PublicKey), keys[1].Public().(stded25519.PublicKey)}
	sigs[1][0] ^= 1 // corrupt the second
	ok, err := e.Verify(pubs, msgs, sigs, nil)
	fmt.Println(ok, err, stded25519.Verify(pubs[0], msgs[0], sigs[0]))
	// Output: [true false] <nil> true
}
