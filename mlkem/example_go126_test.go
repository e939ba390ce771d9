//go:build go1.26

package mlkem_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

// A decapsulation key held by a Server, as Go 1.26's crypto.Decapsulator:
// a peer encapsulates to its encapsulation key, and the Server recovers
// the shared key (batched with other requests on a GPU, or at once on the
// CPU).
func ExampleDecapsulationKey() {
	e, _ := mlkem.Auto()
	defer e.Close()
	s, err := mlkem.NewServer(batch.Options{}, e)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	seed := make([]byte, mlkem.SeedSize)
	rand.Read(seed)
	key, err := s.DecapsulationKey(mlkem.MLKEM768, seed)
	if err != nil {
		log.Fatal(err)
	}
	defer key.Close()

	shared, ciphertext := key.Encapsulator().Encapsulate() // the peer's side
	got, err := key.Decapsulate(ciphertext)
	fmt.Println(bytes.Equal(got, shared), err)
	// Output: true <nil>
}
