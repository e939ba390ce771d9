package ed25519

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"fmt"
	"math/big"
	"slices"
)

// The sizes of crypto/ed25519's keys and signatures, which this package
// takes and gives.
const (
	PublicKeySize  = ed25519.PublicKeySize
	PrivateKeySize = ed25519.PrivateKeySize
	SignatureSize  = ed25519.SignatureSize
	SeedSize       = ed25519.SeedSize
)

// DeviceMessageMax is the longest message the kernels hash. The host
// takes over beyond it, where the hash's cost grows with the message and
// no longer the curve arithmetic: Verify hashes a longer message on the
// CPU and hands the kernel its scalar k, Sign signs it on the CPU with
// crypto/ed25519 (its hashes read the message twice, around R, which the
// device would compute). The verdicts and signatures are the same either
// way.
const DeviceMessageMax = 4096

// Errors of single elements (in a *batch.Error) and of calls.
var (
	// ErrKeyLength: a public key not of PublicKeySize bytes, a private key
	// not of PrivateKeySize bytes, or a seed not of SeedSize bytes
	// (crypto/ed25519 panics for these).
	ErrKeyLength = errors.New("ed25519: bad key length")
	// ErrPrehashLength: an Ed25519ph message that is not a SHA-512 hash
	// of 64 bytes.
	ErrPrehashLength = errors.New("ed25519: bad Ed25519ph message hash length")
	// ErrOptions: Options that crypto/ed25519 refuses (a hash other than
	// none or SHA-512, a context longer than 255 bytes).
	ErrOptions = errors.New("ed25519: bad options")
	// ErrOutputLength: an output of SignInto not of SignatureSize bytes.
	ErrOutputLength = errors.New("ed25519: bad signature output length")
)

// variant is the RFC 8032 variant that an *ed25519.Options selects: its
// dom2 prefix (none for plain Ed25519), whether messages are SHA-512
// hashes (Ed25519ph), and the options for crypto/ed25519 on the CPU.
type variant struct {
	dom     []byte
	prehash bool
	opts    ed25519.Options
}

// dom2's first bytes (RFC 8032 §5.1), then the prehash flag.
const domPrefix = "SigEd25519 no Ed25519 collisions"

// variantOf reads opts as crypto/ed25519 does: nil or a zero Hash with no
// Context is Ed25519, Hash crypto.SHA512 Ed25519ph, a zero Hash with a
// Context Ed25519ctx.
func variantOf(opts *ed25519.Options) (variant, error) {
	if opts == nil {
		return variant{}, nil
	}
	if len(opts.Context) > 255 {
		return variant{}, fmt.Errorf("%w: a context of %d bytes (at most 255)", ErrOptions, len(opts.Context))
	}
	v := variant{opts: *opts}
	var flag byte
	switch {
	case opts.Hash == crypto.SHA512:
		v.prehash, flag = true, 1
	case opts.Hash == 0 && opts.Context != "":
	case opts.Hash == 0:
		return v, nil
	default:
		return variant{}, fmt.Errorf("%w: Hash %v (want none, for Ed25519, or SHA-512, for Ed25519ph)", ErrOptions, opts.Hash)
	}
	v.dom = append([]byte(domPrefix), flag, byte(len(opts.Context)))
	v.dom = append(v.dom, opts.Context...)
	return v, nil
}

// checkMessage is the error of a message that this variant refuses.
func (v *variant) checkMessage(msg []byte) error {
	if v.prehash && len(msg) != sha512.Size {
		return fmt.Errorf("%w: %d bytes", ErrPrehashLength, len(msg))
	}
	return nil
}

// signOne is crypto/ed25519's signature of msg under key into out
// (SignatureSize bytes).
func (v *variant) signOne(out []byte, key ed25519.PrivateKey, msg []byte) error {
	if len(out) != SignatureSize {
		return fmt.Errorf("%w: %d bytes", ErrOutputLength, len(out))
	}
	if len(key) != PrivateKeySize {
		return fmt.Errorf("%w: a private key of %d bytes", ErrKeyLength, len(key))
	}
	if err := v.checkMessage(msg); err != nil {
		return err
	}
	if v.dom == nil {
		copy(out, ed25519.Sign(key, msg))
		return nil
	}
	sig, err := key.Sign(nil, msg, &v.opts)
	if err != nil {
		return err
	}
	copy(out, sig)
	return nil
}

// verifyOne is crypto/ed25519's verdict on sig, with an error where
// crypto/ed25519 would panic or the input is malformed.
func (v *variant) verifyOne(pub ed25519.PublicKey, msg, sig []byte) (bool, error) {
	if len(pub) != PublicKeySize {
		return false, fmt.Errorf("%w: a public key of %d bytes", ErrKeyLength, len(pub))
	}
	if err := v.checkMessage(msg); err != nil {
		return false, err
	}
	return ed25519.VerifyWithOptions(pub, msg, sig, &v.opts) == nil, nil
}

// order is L, the order of the base point: 2^252 +
// 27742317777372353535851937790883648493.
var order = func() *big.Int {
	l, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
	return l.Add(l, new(big.Int).Lsh(big.NewInt(1), 252))
}()

// orderBytes is L, 32 bytes little-endian.
var orderBytes = func() []byte {
	b := order.FillBytes(make([]byte, 32))
	slices.Reverse(b)
	return b
}()

// canonicalScalar reports whether the 32 little-endian bytes s are below
// L, as crypto/ed25519 wants a signature's S.
func canonicalScalar(s []byte) bool {
	for i := 31; i >= 0; i-- {
		if s[i] != orderBytes[i] {
			return s[i] < orderBytes[i]
		}
	}
	return false
}

// challenge is k = SHA-512(dom ‖ R ‖ A ‖ msg) mod L, 32 bytes
// little-endian: the host's hash of a message too long for the kernels.
func (v *variant) challenge(r, pub, msg []byte) [32]byte {
	h := sha512.New()
	h.Write(v.dom)
	h.Write(r)
	h.Write(pub)
	h.Write(msg)
	digest := h.Sum(nil)
	slices.Reverse(digest)
	k := new(big.Int).SetBytes(digest)
	k.Mod(k, order)
	var out [32]byte
	k.FillBytes(out[:])
	slices.Reverse(out[:])
	return out
}
