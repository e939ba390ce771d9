package mlkem_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// ML-KEM-768 in batches: encapsulation keys from 64-byte seeds,
// encapsulations to them, and the decapsulations that recover the same
// shared keys, on a GPU when there is one, else with crypto/mlkem. A
// ciphertext changed in one bit decapsulates, as FIPS 203 says, to an
// unrelated key (implicit rejection), not to an error.
func ExampleEngine() {
	e, _ := mlkem.Auto() // the Choice says which engine and why
	defer e.Close()
	seeds := [][]byte{make([]byte, mlkem.SeedSize), make([]byte, mlkem.SeedSize)}
	for _, s := range seeds {
		rand.Read(s)
	}
	eks, err := e.KeyGen768(seeds)
	if err != nil {
		log.Fatal(err)
	}
	shared, cts, err := e.Encapsulate768(eks)
	if err != nil {
		log.Fatal(err)
	}
	cts[1][0] ^= 1
	got, err := e.Decapsulate768(seeds, cts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(eks[0]), len(cts[0]), len(shared[0]))
	fmt.Println(bytes.Equal(got[0], shared[0]), bytes.Equal(got[1], shared[1]))
	// Output:
	// 1184 1088 32
	// true false
}
