//go:build !go1.26

package main

// stdEncapsulateDerandomized is nil before Go 1.26, which has no
// crypto/mlkem/mlkemtest: the burn-in then checks the device's
// ciphertexts by crypto/mlkem's decapsulation of them alone, and the soak
// encapsulates its cases with fresh randomness.
var stdEncapsulateDerandomized func(ek stdEncapsulator, m []byte) (shared, ciphertext []byte, err error)
