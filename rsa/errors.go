package rsa

import (
	stdrsa "crypto/rsa"
	"errors"
)

var (
	// ErrInvalidKey is wrapped by every error about a key that cannot be
	// used (nil, malformed, inconsistent, unsupported size or shape).
	ErrInvalidKey = errors.New("rsa: invalid key")

	// ErrInputSize is wrapped by the error of an element whose ciphertext
	// or signature is not exactly as long as the modulus.
	ErrInputSize = errors.New("rsa: input length is not the modulus size")

	// ErrInputRange is wrapped by the error of an element whose ciphertext
	// or signature, read as an integer, is not below the modulus.
	ErrInputRange = errors.New("rsa: input is not below the modulus")

	// ErrFault is the error of an element whose private-key result failed
	// the check result^e mod n == input: the computation was faulty and no
	// value is returned for it.
	ErrFault = errors.New("rsa: fault check failed: the private-key result does not match the public key; no value returned")

	// ErrDecryption, ErrVerification and ErrMessageTooLong are crypto/rsa's
	// errors (the same values), so errors.Is works with either package.
	ErrDecryption     = stdrsa.ErrDecryption
	ErrVerification   = stdrsa.ErrVerification
	ErrMessageTooLong = stdrsa.ErrMessageTooLong
)

// errValueSize is the error of a value that is not the size of its
// modulus (the byte-level methods never make one).
var errValueSize = errors.New("rsa: a value is not the size of its modulus")
