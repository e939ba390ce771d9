package hpke

import (
	"errors"
	"fmt"
)

// KEM is an HPKE key encapsulation mechanism, named by its identifier
// (RFC 9180 §7.1, draft-ietf-hpke-pq): one of the constants below.
type KEM uint16

// The KEMs an Engine computes.
const (
	// DHKEMX25519 is DHKEM(X25519, HKDF-SHA256) of RFC 9180.
	DHKEMX25519 KEM = 0x0020
	// MLKEM768 is ML-KEM-768 alone, of draft-ietf-hpke-pq.
	MLKEM768 KEM = 0x0041
	// MLKEM768X25519 is MLKEM768-X25519 (X-Wing) of draft-ietf-hpke-pq:
	// ML-KEM-768 and X25519 with SHA3-256 combining their secrets.
	MLKEM768X25519 KEM = 0x647a
)

// KDF is an HPKE key derivation function, named by its identifier.
type KDF uint16

// HKDFSHA256 is HKDF-SHA256 (RFC 9180 §7.2), the only KDF of an Engine.
const HKDFSHA256 KDF = 0x0001

// AEAD is an HPKE AEAD, named by its identifier.
type AEAD uint16

// The AEADs an Engine computes (RFC 9180 §7.3).
const (
	AES128GCM AEAD = 0x0001
	AES256GCM AEAD = 0x0002
)

// Suite is an HPKE cipher suite: the KEM of the keys, the KDF of the key
// schedule and the AEAD of the messages. Messages are in base mode
// (mode 0: no pre-shared key, no sender key), single-shot: each message
// has its own encapsulated key enc and is the first (sequence number 0)
// of its context, as crypto/hpke's Seal and Open make them.
type Suite struct {
	KEM  KEM
	KDF  KDF
	AEAD AEAD
}

func (k KEM) String() string {
	switch k {
	case DHKEMX25519:
		return "DHKEM(X25519, HKDF-SHA256)"
	case MLKEM768:
		return "ML-KEM-768"
	case MLKEM768X25519:
		return "MLKEM768-X25519"
	}
	return fmt.Sprintf("KEM(%#04x)", uint16(k))
}

func (k KDF) String() string {
	if k == HKDFSHA256 {
		return "HKDF-SHA256"
	}
	return fmt.Sprintf("KDF(%#04x)", uint16(k))
}

func (a AEAD) String() string {
	switch a {
	case AES128GCM:
		return "AES-128-GCM"
	case AES256GCM:
		return "AES-256-GCM"
	}
	return fmt.Sprintf("AEAD(%#04x)", uint16(a))
}

func (s Suite) String() string {
	return s.KEM.String() + ", " + s.KDF.String() + ", " + s.AEAD.String()
}

// Errors of calls and of single elements. An element's error wraps one of
// them (errors.Is); the call's per-element errors are in a *batch.Error.
var (
	// ErrSuite: a KEM, KDF or AEAD that an Engine does not compute (the
	// call's error).
	ErrSuite = errors.New("hpke: unsupported cipher suite")
	// ErrKey: no key, a key of another KEM than the call's suite,
	// serialized key bytes of the wrong length or value, or, when
	// sealing, a recipient X25519 public key of low order (the shared
	// secret all zeros: it wraps ecdh.ErrLowOrder), which crypto/hpke's
	// Seal refuses as crypto/ecdh does.
	ErrKey = errors.New("hpke: invalid key")
	// ErrKeyClosed: a PrivateKey used after Close.
	ErrKeyClosed = errors.New("hpke: private key used after Close")
	// ErrCiphertextShort: a ciphertext shorter than the KEM's
	// encapsulated key enc (crypto/hpke's "ciphertext too short").
	ErrCiphertextShort = errors.New("hpke: ciphertext too short")
	// ErrEncapsulation: an encapsulated key whose X25519 part is a point
	// of low order (the shared secret all zeros: it wraps
	// ecdh.ErrLowOrder), which crypto/hpke's Open refuses as crypto/ecdh
	// does.
	ErrEncapsulation = errors.New("hpke: invalid encapsulated key")
	// ErrOpen: a message that does not authenticate (a wrong key, enc,
	// info, additional data, ciphertext or tag, or one shorter than the
	// tag): no plaintext is released.
	ErrOpen = errors.New("hpke: message authentication failed")
	// ErrRandomness: derandomized sealing's randomness of the wrong
	// length (RandomnessSize).
	ErrRandomness = errors.New("hpke: encapsulation randomness of the wrong length")
)

// kemParams are a KEM's sizes (bytes) and parts.
type kemParams struct {
	id KEM
	// privateSize, publicSize and encSize are the lengths of the
	// serialized private key (SerializePrivateKey: a seed for the
	// ML-KEM KEMs, the scalar for DHKEM), of the public key and of enc
	// (Nsk, Npk, Nenc)
	privateSize, publicSize, encSize int
	// randomness is the length of one encapsulation's randomness
	// (RandomnessSize)
	randomness int
	// pq and curve: the KEM has an ML-KEM-768 part, an X25519 part
	pq, curve bool
}

const (
	x25519Size      = 32
	mlkemSeedSize   = 64
	mlkemEKSize     = 1184
	mlkemCTSize     = 1088
	mlkemRandomSize = 32
)

var kems = map[KEM]*kemParams{
	DHKEMX25519: {id: DHKEMX25519, privateSize: x25519Size, publicSize: x25519Size, encSize: x25519Size,
		randomness: x25519Size, curve: true},
	MLKEM768: {id: MLKEM768, privateSize: mlkemSeedSize, publicSize: mlkemEKSize, encSize: mlkemCTSize,
		randomness: mlkemRandomSize, pq: true},
	MLKEM768X25519: {id: MLKEM768X25519, privateSize: 32, publicSize: mlkemEKSize + x25519Size, encSize: mlkemCTSize + x25519Size,
		randomness: mlkemRandomSize + x25519Size, pq: true, curve: true},
}

// params are k's parameters, or ErrSuite.
func (k KEM) params() (*kemParams, error) {
	p, ok := kems[k]
	if !ok {
		return nil, fmt.Errorf("%w: %v (have %v, %v, %v)", ErrSuite, k, DHKEMX25519, MLKEM768, MLKEM768X25519)
	}
	return p, nil
}

// EncapsulatedKeySize is the length of k's enc (Nenc), the start of every
// ciphertext of Seal; 0 for a KEM that is not one of the constants.
func (k KEM) EncapsulatedKeySize() int {
	if p, err := k.params(); err == nil {
		return p.encSize
	}
	return 0
}

// RandomnessSize is the length of the randomness of one encapsulation to
// k that SealDerandomized takes: for MLKEM768X25519 ML-KEM's message m
// (32 bytes) followed by the ephemeral X25519 private key (32 bytes), for
// MLKEM768 m, for DHKEMX25519 the ephemeral private key. 0 for a KEM that
// is not one of the constants.
func (k KEM) RandomnessSize() int {
	if p, err := k.params(); err == nil {
		return p.randomness
	}
	return 0
}

// TagSize is the length of the AEADs' tag: a ciphertext of Seal is enc,
// then the sealed plaintext, then the tag.
const TagSize = 16

// keySize is the AEAD's key length (Nk), 0 for none of the constants.
func (a AEAD) keySize() int {
	switch a {
	case AES128GCM:
		return 16
	case AES256GCM:
		return 32
	}
	return 0
}

// nonceSize is the AEADs' nonce length (Nn).
const nonceSize = 12

// check returns the suite's KEM parameters, or ErrSuite.
func (s Suite) check() (*kemParams, error) {
	p, err := s.KEM.params()
	if err != nil {
		return nil, err
	}
	if s.KDF != HKDFSHA256 {
		return nil, fmt.Errorf("%w: %v (have %v)", ErrSuite, s.KDF, HKDFSHA256)
	}
	if s.AEAD.keySize() == 0 {
		return nil, fmt.Errorf("%w: %v (have %v, %v)", ErrSuite, s.AEAD, AES128GCM, AES256GCM)
	}
	return p, nil
}

// id is the suite's suite_id of the key schedule (RFC 9180 §5.1):
// "HPKE" ‖ I2OSP(kem_id, 2) ‖ I2OSP(kdf_id, 2) ‖ I2OSP(aead_id, 2).
func (s Suite) id() [10]byte {
	return [10]byte{'H', 'P', 'K', 'E', byte(s.KEM >> 8), byte(s.KEM), byte(s.KDF >> 8), byte(s.KDF), byte(s.AEAD >> 8), byte(s.AEAD)}
}
