//go:build go1.26

package hpke

import (
	stdhpke "crypto/hpke"
	"fmt"
)

// PrivateKeyOf returns the PrivateKey of crypto/hpke's k (Go 1.26), from
// its Bytes: a key whose bytes crypto/hpke does not have (one of
// NewHybridPrivateKey or NewDHKEMPrivateKey over a KeyExchanger that is
// not crypto/ecdh's, say) is refused, and so is one of a KEM the Engine
// does not compute.
func PrivateKeyOf(k stdhpke.PrivateKey) (*PrivateKey, error) {
	b, err := k.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: crypto/hpke's key has no bytes: %w", ErrKey, err)
	}
	// not zeroed here: crypto/hpke's hybrid keys return their own seed
	return NewPrivateKey(KEM(k.KEM().ID()), b)
}

// PublicKeyOf returns the PublicKey of crypto/hpke's pub (Go 1.26).
func PublicKeyOf(pub stdhpke.PublicKey) (*PublicKey, error) {
	return NewPublicKey(KEM(pub.KEM().ID()), pub.Bytes())
}
