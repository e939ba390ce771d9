// Package ecdsa signs and verifies ECDSA signatures over NIST P-256 in
// batches on a GPU, and computes ECDH over P-256: an Engine signs (nonces
// hedged as crypto/ecdsa makes them, derived on the device from 32 random
// bytes per signature that the host reads from the caller's reader, or
// with crypto/rand's from an AES-256 counter-mode generator keyed from
// crypto/rand; every signature verifies under crypto/ecdsa), verifies
// (exactly crypto/ecdsa's verdicts) and computes shared secrets and
// public keys (byte for byte crypto/ecdh.P256()'s) for whole batches on a
// device, or on the CPU cores with crypto/ecdsa and crypto/ecdh.
//
// Keys are crypto/ecdsa's; signatures are ASN.1 DER (as ecdsa.SignASN1
// gives them and VerifyASN1 takes them) or IEEE P1363's r ‖ s (JOSE's
// ES256). Keys on other curves fail their element (ErrCurve).
// Engine.SignASN1 and SignP1363 return new signatures; SignASN1Into and
// SignP1363Into write them into outputs the caller owns and reuses from
// call to call (in place for a capacity of MaxASN1Size or P1363Size), so
// that a large call allocates nothing per signature and leaves no garbage.
// A Server batches single requests from many goroutines (signatures,
// verifications, ECDH) and gives crypto.Signer values for crypto/tls and
// crypto/x509.
//
// ECDH (Engine.ECDH, PublicKeys, ECDHKeys) takes crypto/ecdh's encodings:
// 32-byte private scalars, 65-byte uncompressed public points, 32-byte
// shared secrets (the x-coordinate); an input crypto/ecdh refuses fails
// its element with crypto/ecdh's error. It lives here, not in package
// ecdh, because it is the same curve: one Engine and its tables serve
// both, on the field and point arithmetic the ECDSA kernels use, while
// package ecdh is RFC 7748's Montgomery curves (X25519, X448).
//
// Constant time: on the device, signing, shared secrets and public keys
// run in constant time in the private keys, random bytes and nonces (no
// branch and no memory index depends on them: masked table scans,
// Jacobian point formulas whose exceptions are handled by masks, Fermat
// inversions with fixed exponents; the
// nonce derivation's one exception, crypto/ecdsa's too, is its loop over
// candidates, about 2^-32 likely to run twice and revealing nothing about
// the nonce), and the host buffers that held them are zeroed. The host's
// range checks of a private scalar reveal only whether it is valid (the
// conversion of an ecdsa.PrivateKey's big.Int D to bytes is math/big's,
// which is not constant-time; RFC 6979's deterministic nonces are derived
// on the host with crypto/hmac, whose internal state is not zeroed).
// Elements the device does not compute (invalid inputs) and the CPU
// engine use crypto/ecdsa and crypto/ecdh. Verification handles public values only and is
// variable-time, as is the check that a peer's point is on the curve.
package ecdsa
