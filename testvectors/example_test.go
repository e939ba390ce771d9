package testvectors_test

import (
	"crypto/ecdh"
	"encoding/hex"
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// RFC 7748's X25519 vectors checked against crypto/ecdh: the vectors
// are embedded, so a test binary needs no file beside it.
func ExampleRFC7748() {
	x25519, _, err := testvectors.RFC7748()
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range x25519.Single {
		scalar, _ := hex.DecodeString(v.Scalar)
		u, _ := hex.DecodeString(v.U)
		key, _ := ecdh.X25519().NewPrivateKey(scalar)
		peer, _ := ecdh.X25519().NewPublicKey(u)
		out, _ := key.ECDH(peer)
		fmt.Println(hex.EncodeToString(out) == v.Output)
	}
	// Output:
	// true
	// true
}
