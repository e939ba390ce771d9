package main

import (
	stdmlkem "crypto/mlkem"
	"crypto/sha3"
	"strings"

	"github.com/gpucrypto/gpucrypto/mlkem"
)

// mlkemSet is an ML-KEM parameter set as the CLI's ML-KEM operations
// (bench mlkem, burnin, its soak, bench server) use it: the Engine's calls
// of the set, and crypto/mlkem's keys of it, the reference of every check.
type mlkemSet struct {
	name   string // the operations' prefix: "mlkem768"
	title  string // "ML-KEM-768"
	size   int    // 768 or 1024: the bits column of bench
	params mlkem.Parameters

	encapsulationKeySize, ciphertextSize int

	keyGen                  func(e *mlkem.Engine, seeds [][]byte) ([][]byte, error)
	encapsulate             func(e *mlkem.Engine, eks [][]byte) (shared, ciphertexts [][]byte, err error)
	encapsulateDerandomized func(e *mlkem.Engine, eks, random [][]byte) (shared, ciphertexts [][]byte, err error)
	decapsulate             func(e *mlkem.Engine, seeds, ciphertexts [][]byte) ([][]byte, error)

	// stdKey is crypto/mlkem's decapsulation key of seed (d ‖ z) and its
	// encapsulation key
	stdKey func(seed []byte) (stdDecapsulator, stdEncapsulator, error)
	// stdEncapsulationKey is crypto/mlkem's encapsulation key of the
	// bytes ek (the modulus check included)
	stdEncapsulationKey func(ek []byte) (stdEncapsulator, error)
}

// stdDecapsulator is a decapsulation key of crypto/mlkem
// (*DecapsulationKey768 or *DecapsulationKey1024).
type stdDecapsulator interface {
	Decapsulate(ciphertext []byte) (sharedKey []byte, err error)
}

// stdEncapsulator is an encapsulation key of crypto/mlkem
// (*EncapsulationKey768 or *EncapsulationKey1024).
type stdEncapsulator interface {
	Bytes() []byte
	Encapsulate() (sharedKey, ciphertext []byte)
}

var mlkem768Set = &mlkemSet{
	name: "mlkem768", title: "ML-KEM-768", size: 768, params: mlkem.MLKEM768,
	encapsulationKeySize: mlkem.EncapsulationKeySize768, ciphertextSize: mlkem.CiphertextSize768,
	keyGen:                  (*mlkem.Engine).KeyGen768,
	encapsulate:             (*mlkem.Engine).Encapsulate768,
	encapsulateDerandomized: (*mlkem.Engine).EncapsulateDerandomized768,
	decapsulate:             (*mlkem.Engine).Decapsulate768,
	stdKey: func(seed []byte) (stdDecapsulator, stdEncapsulator, error) {
		dk, err := stdmlkem.NewDecapsulationKey768(seed)
		if err != nil {
			return nil, nil, err
		}
		return dk, dk.EncapsulationKey(), nil
	},
	stdEncapsulationKey: func(ek []byte) (stdEncapsulator, error) {
		k, err := stdmlkem.NewEncapsulationKey768(ek)
		if err != nil {
			return nil, err
		}
		return k, nil
	},
}

var mlkem1024Set = &mlkemSet{
	name: "mlkem1024", title: "ML-KEM-1024", size: 1024, params: mlkem.MLKEM1024,
	encapsulationKeySize: mlkem.EncapsulationKeySize1024, ciphertextSize: mlkem.CiphertextSize1024,
	keyGen:                  (*mlkem.Engine).KeyGen1024,
	encapsulate:             (*mlkem.Engine).Encapsulate1024,
	encapsulateDerandomized: (*mlkem.Engine).EncapsulateDerandomized1024,
	decapsulate:             (*mlkem.Engine).Decapsulate1024,
	stdKey: func(seed []byte) (stdDecapsulator, stdEncapsulator, error) {
		dk, err := stdmlkem.NewDecapsulationKey1024(seed)
		if err != nil {
			return nil, nil, err
		}
		return dk, dk.EncapsulationKey(), nil
	},
	stdEncapsulationKey: func(ek []byte) (stdEncapsulator, error) {
		k, err := stdmlkem.NewEncapsulationKey1024(ek)
		if err != nil {
			return nil, err
		}
		return k, nil
	},
}

// mlkemSetOf is the parameter set of an operation's name: mlkem1024 for a
// name that starts with it, else mlkem768.
func mlkemSetOf(op string) *mlkemSet {
	if strings.HasPrefix(op, mlkem1024Set.name) {
		return mlkem1024Set
	}
	return mlkem768Set
}

// mlkemRejectionKey is FIPS 203's implicit-rejection key of ciphertext
// under the decapsulation key seed d ‖ z: J(z ‖ c) = SHAKE256(z ‖ c, 256
// bits), the shared key that decapsulation returns for a ciphertext that
// does not re-encrypt to itself (a corrupted one), computed here without
// crypto/mlkem so that every corrupted ciphertext of a burn-in is checked
// at the cost of a hash.
func mlkemRejectionKey(seed, ciphertext []byte) []byte {
	if len(seed) != mlkem.SeedSize {
		return nil
	}
	z := seed[mlkem.SeedSize/2:]
	return sha3.SumSHAKE256(append(append(make([]byte, 0, len(z)+len(ciphertext)), z...), ciphertext...), mlkem.SharedKeySize)
}
