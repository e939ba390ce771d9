package ecdsa

import (
	"context"
	stdecdh "crypto/ecdh"
	"errors"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// KeyExchanger is a P-256 private key held by a Server: a
// crypto/ecdh.KeyExchanger whose ECDH runs on the Server, batched with
// other callers' requests (crypto/hpke's NewDHKEMPrivateKey takes it for
// DHKEM(P-256), and NewHybridPrivateKey for the P-256 half of
// MLKEM768-P256). It holds its own copy of the key, zeroed by Close.
type KeyExchanger struct {
	s   *Server
	key *engine.HeldKey
	pub *stdecdh.PublicKey
}

// KeyExchanger returns priv, a P-256 key of crypto/ecdh (an ECDSA key's
// PrivateKey.ECDH gives one), held by s. It fails for a nil key, a key of
// another curve, and on a closed server.
func (s *Server) KeyExchanger(priv *stdecdh.PrivateKey) (*KeyExchanger, error) {
	switch {
	case priv == nil:
		return nil, ErrNilKey
	case priv.Curve() != stdecdh.P256():
		return nil, errors.New("ecdsa: KeyExchanger: the key is not P-256's (X25519 keys: package ecdh's Server)")
	}
	if err := s.shell.Err(); err != nil {
		return nil, err
	}
	raw := priv.Bytes()
	defer clear(raw)
	return &KeyExchanger{s: s, key: engine.NewHeldKey("ecdsa", raw), pub: priv.PublicKey()}, nil
}

// PublicKey returns the key's public key.
func (k *KeyExchanger) PublicKey() *stdecdh.PublicKey { return k.pub }

// Curve returns crypto/ecdh's P256.
func (k *KeyExchanger) Curve() stdecdh.Curve { return stdecdh.P256() }

// ECDH is ECDHContext with context.Background().
func (k *KeyExchanger) ECDH(peer *stdecdh.PublicKey) ([]byte, error) {
	return k.ECDHContext(context.Background(), peer)
}

// ECDHContext computes the shared secret with peer on the Server, as
// crypto/ecdh's PrivateKey.ECDH does; ctx bounds the wait for the batch.
// It fails for a nil peer or one of another curve, after Close and after
// the Server's Close.
func (k *KeyExchanger) ECDHContext(ctx context.Context, peer *stdecdh.PublicKey) ([]byte, error) {
	switch {
	case peer == nil:
		return nil, ErrNilKey
	case peer.Curve() != stdecdh.P256():
		return nil, errors.New("ecdsa: ECDH: the peer's key is not P-256's")
	}
	return k.key.Use(ctx, func(ctx context.Context, priv []byte) ([]byte, error) {
		return k.s.ECDH(ctx, priv, peer.Bytes())
	})
}

// Close zeroes the key's copy; later ECDH calls fail with batch.ErrClosed.
func (k *KeyExchanger) Close() error { return k.key.Close() }
