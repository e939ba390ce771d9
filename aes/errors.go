package aes

import "errors"

var (
	// ErrNilKey is returned for an element without a key.
	ErrNilKey = errors.New("aes: nil key")
	// ErrKeyDestroyed is returned for a key used after Key.Close (or
	// its deprecated alias Destroy).
	ErrKeyDestroyed = errors.New("aes: key used after Close")
	// ErrOpen is returned by Open for a message whose tag does not match
	// (a wrong key, nonce, AAD, ciphertext or tag): no plaintext is
	// released, its output is zeroed.
	ErrOpen = errors.New("aes: message authentication failed")
	// ErrOverlap is returned when dst and src overlap other than exactly
	// (crypto/cipher's rule).
	ErrOverlap = errors.New("aes: invalid buffer overlap of output and input")
)
