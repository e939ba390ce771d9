package ecdh

import (
	"context"
	stdecdh "crypto/ecdh"
	"errors"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// KeyExchanger is an X25519 private key held by a Server: a
// crypto/ecdh.KeyExchanger whose ECDH runs on the Server, batched with
// other callers' requests (crypto/hpke's NewDHKEMPrivateKey takes it for
// DHKEM(X25519), and NewHybridPrivateKey for the X25519 half of
// MLKEM768-X25519). It holds its own copy of the key, zeroed by Close.
type KeyExchanger struct {
	s   *Server
	key *engine.HeldKey
	pub *stdecdh.PublicKey
}

// KeyExchanger returns priv, an X25519 key of crypto/ecdh, held by s. It
// fails for a nil key, a key of another curve, and on a closed server.
func (s *Server) KeyExchanger(priv *stdecdh.PrivateKey) (*KeyExchanger, error) {
	switch {
	case priv == nil:
		return nil, errors.New("ecdh: KeyExchanger: nil private key")
	case priv.Curve() != stdecdh.X25519():
		return nil, errors.New("ecdh: KeyExchanger: the key is not X25519's (P-256 keys: package ecdsa's Server)")
	}
	if err := s.shell.Err(); err != nil {
		return nil, err
	}
	raw := priv.Bytes()
	defer clear(raw)
	return &KeyExchanger{s: s, key: engine.NewHeldKey("ecdh", raw), pub: priv.PublicKey()}, nil
}

// PublicKey returns the key's public key.
func (k *KeyExchanger) PublicKey() *stdecdh.PublicKey { return k.pub }

// Curve returns crypto/ecdh's X25519.
func (k *KeyExchanger) Curve() stdecdh.Curve { return stdecdh.X25519() }

// ECDH is ECDHContext with context.Background().
func (k *KeyExchanger) ECDH(peer *stdecdh.PublicKey) ([]byte, error) {
	return k.ECDHContext(context.Background(), peer)
}

// ECDHContext computes the shared secret with peer on the Server, as
// crypto/ecdh's PrivateKey.ECDH does (an all-zero secret, from a
// low-order peer, is an error: ErrLowOrder); ctx bounds the wait for the
// batch. It fails for a nil peer or one of another curve, after Close
// and after the Server's Close.
func (k *KeyExchanger) ECDHContext(ctx context.Context, peer *stdecdh.PublicKey) ([]byte, error) {
	switch {
	case peer == nil:
		return nil, errors.New("ecdh: ECDH: nil peer public key")
	case peer.Curve() != stdecdh.X25519():
		return nil, errors.New("ecdh: ECDH: the peer's key is not X25519's")
	}
	return k.key.Use(ctx, func(ctx context.Context, priv []byte) ([]byte, error) {
		return k.s.SharedSecret(ctx, X25519(), priv, peer.Bytes())
	})
}

// Close zeroes the key's copy; later ECDH calls fail with batch.ErrClosed.
func (k *KeyExchanger) Close() error { return k.key.Close() }
