package hpke

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha3"
	"fmt"
	"sync"
)

// PrivateKey is a recipient's private key of one KEM: what the Engine's
// decapsulations need, derived once from the serialized key (the ML-KEM
// seed d ‖ z, the X25519 scalar), and its public key. It is safe for
// concurrent use. Close zeroes the key's bytes once the calls using it
// have returned; crypto/mlkem's and crypto/ecdh's values made from them
// while deriving the public key are left to the garbage collector.
type PrivateKey struct {
	kem *kemParams
	pub *PublicKey

	// users counts the calls holding the key (hold); closed is set by
	// Close, which then waits for users to reach zero (idle, on mu)
	// before it zeroes the bytes. A hold never waits: after Close has
	// begun it fails.
	mu     sync.Mutex
	idle   sync.Cond
	users  int
	closed bool
	// serialized is the key as NewPrivateKey took it (crypto/hpke's
	// PrivateKey.Bytes, but for DHKEM's clamping)
	serialized []byte
	// pqSeed is the ML-KEM-768 seed d ‖ z (MLKEM768, MLKEM768X25519);
	// scalar the X25519 private key, as crypto/ecdh takes it
	// (DHKEMX25519, MLKEM768X25519)
	pqSeed, scalar []byte
}

// PublicKey is a recipient's public key of one KEM, checked as
// crypto/hpke's KEM.NewPublicKey checks it (ML-KEM's modulus check).
type PublicKey struct {
	kem   *kemParams
	bytes []byte
	// ek is the ML-KEM-768 encapsulation key, point the X25519 public
	// key (views of bytes; nil where the KEM has no such part)
	ek, point []byte
}

// NewPrivateKey returns the private key of kem serialized as b, the bytes
// of crypto/hpke's KEM.NewPrivateKey: for MLKEM768X25519 the 32-byte seed
// (expanded with SHAKE256 into the ML-KEM-768 seed and the X25519 key, as
// draft-ietf-hpke-pq says), for MLKEM768 the 64-byte seed d ‖ z, for
// DHKEMX25519 the 32-byte X25519 private key. The key keeps its own copy
// of b.
func NewPrivateKey(kem KEM, b []byte) (*PrivateKey, error) {
	p, err := kem.params()
	if err != nil {
		return nil, err
	}
	if len(b) != p.privateSize {
		return nil, fmt.Errorf("%w: %v private key of %d bytes, want %d", ErrKey, kem, len(b), p.privateSize)
	}
	k := &PrivateKey{kem: p, serialized: bytes.Clone(b)}
	k.idle.L = &k.mu
	switch kem {
	case MLKEM768X25519:
		expanded := make([]byte, mlkemSeedSize+x25519Size)
		s := sha3.NewSHAKE256()
		s.Write(b)
		s.Read(expanded)
		k.pqSeed, k.scalar = expanded[:mlkemSeedSize:mlkemSeedSize], expanded[mlkemSeedSize:]
	case MLKEM768:
		k.pqSeed = k.serialized
	case DHKEMX25519:
		k.scalar = k.serialized
	}
	pub := &PublicKey{kem: p, bytes: make([]byte, 0, p.publicSize)}
	if p.pq {
		dk, err := mlkem.NewDecapsulationKey768(k.pqSeed)
		if err != nil {
			k.Close()
			return nil, fmt.Errorf("%w: %v: %w", ErrKey, kem, err)
		}
		pub.bytes = append(pub.bytes, dk.EncapsulationKey().Bytes()...)
	}
	if p.curve {
		priv, err := stdecdh.X25519().NewPrivateKey(k.scalar)
		if err != nil {
			k.Close()
			return nil, fmt.Errorf("%w: %v: %w", ErrKey, kem, err)
		}
		pub.bytes = append(pub.bytes, priv.PublicKey().Bytes()...)
	}
	pub.split()
	k.pub = pub
	return k, nil
}

// GenerateKey returns a new private key of kem, from crypto/rand.
func GenerateKey(kem KEM) (*PrivateKey, error) {
	p, err := kem.params()
	if err != nil {
		return nil, err
	}
	b := make([]byte, p.privateSize)
	defer clear(b)
	rand.Read(b)
	return NewPrivateKey(kem, b)
}

// KEM is the key's KEM.
func (k *PrivateKey) KEM() KEM { return k.kem.id }

// PublicKey is the key's public key.
func (k *PrivateKey) PublicKey() *PublicKey { return k.pub }

// Bytes returns a copy of the serialized key, as crypto/hpke's
// PrivateKey.Bytes does (SerializePrivateKey): the seed for the ML-KEM
// KEMs, the X25519 key clamped for DHKEMX25519 (RFC 9180 §7.1.2). It
// fails after Close.
func (k *PrivateKey) Bytes() ([]byte, error) {
	if err := k.hold(); err != nil {
		return nil, err
	}
	defer k.release()
	b := bytes.Clone(k.serialized)
	if k.kem.id == DHKEMX25519 {
		b[0] &= 248
		b[31] &= 127
		b[31] |= 64
	}
	return b, nil
}

// Close zeroes the key's bytes, after the Engine calls that use it have
// returned (it must not be called from within one: OnFallback). Later
// calls fail with ErrKeyClosed, for the elements of the key. Calling it
// again does nothing; the error is always nil.
func (k *PrivateKey) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	for k.users > 0 {
		k.idle.Wait()
	}
	clear(k.serialized)
	clear(k.pqSeed)
	clear(k.scalar)
	return nil
}

// hold keeps k open (Close waits) until release; it fails for a closed
// key, holding nothing.
func (k *PrivateKey) hold() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return ErrKeyClosed
	}
	k.users++
	return nil
}

// release ends a hold, waking a Close waiting for the last.
func (k *PrivateKey) release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.users--; k.users == 0 && k.closed {
		k.idle.Broadcast()
	}
}

// NewPublicKey returns the public key of kem serialized as b, the bytes
// of crypto/hpke's KEM.NewPublicKey: for MLKEM768X25519 the ML-KEM-768
// encapsulation key then the X25519 public key, for MLKEM768 the
// encapsulation key, for DHKEMX25519 the X25519 public key. An
// encapsulation key that fails ML-KEM's modulus check is refused, as
// crypto/mlkem refuses it. The key keeps its own copy of b.
func NewPublicKey(kem KEM, b []byte) (*PublicKey, error) {
	p, err := kem.params()
	if err != nil {
		return nil, err
	}
	if len(b) != p.publicSize {
		return nil, fmt.Errorf("%w: %v public key of %d bytes, want %d", ErrKey, kem, len(b), p.publicSize)
	}
	pub := &PublicKey{kem: p, bytes: bytes.Clone(b)}
	pub.split()
	if p.pq {
		if _, err := mlkem.NewEncapsulationKey768(pub.ek); err != nil {
			return nil, fmt.Errorf("%w: %v: %w", ErrKey, kem, err)
		}
	}
	return pub, nil
}

// split sets the views ek and point of bytes.
func (pub *PublicKey) split() {
	b := pub.bytes
	if pub.kem.pq {
		pub.ek, b = b[:mlkemEKSize:mlkemEKSize], b[mlkemEKSize:]
	}
	if pub.kem.curve {
		pub.point = b[:x25519Size:x25519Size]
	}
}

// KEM is the key's KEM.
func (pub *PublicKey) KEM() KEM { return pub.kem.id }

// Bytes returns a copy of the serialized key (SerializePublicKey, as
// crypto/hpke's PublicKey.Bytes).
func (pub *PublicKey) Bytes() []byte { return bytes.Clone(pub.bytes) }
