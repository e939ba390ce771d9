//go:build go1.26

package main

import (
	stdmlkem "crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"fmt"
)

// stdEncapsulateDerandomized is crypto/mlkem/mlkemtest's encapsulation
// of the randomness m (RandomnessSize bytes, FIPS 203's message) to ek:
// the reference of the Engine's EncapsulateDerandomized768 and
// EncapsulateDerandomized1024, byte for byte. It is nil before Go 1.26,
// which has no crypto/mlkem/mlkemtest (mlkem_derandomized_old.go).
var stdEncapsulateDerandomized = func(ek stdEncapsulator, m []byte) (shared, ciphertext []byte, err error) {
	switch k := ek.(type) {
	case *stdmlkem.EncapsulationKey768:
		return mlkemtest.Encapsulate768(k, m)
	case *stdmlkem.EncapsulationKey1024:
		return mlkemtest.Encapsulate1024(k, m)
	}
	return nil, nil, fmt.Errorf("%T is not an encapsulation key of crypto/mlkem", ek)
}
