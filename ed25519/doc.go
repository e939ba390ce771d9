// Package ed25519 signs and verifies Ed25519 (RFC 8032) signatures in
// batches on a GPU, byte for byte as crypto/ed25519 does: an Engine signs,
// verifies and derives public keys from seeds for whole batches (on a
// device, or on the CPU cores with crypto/ed25519), and a Server batches
// single requests from many goroutines and gives crypto.Signer values for
// crypto/tls and crypto/x509.
//
// Keys, signatures and Options are crypto/ed25519's. Sign gives exactly
// ed25519.Sign's bytes (Ed25519ctx and Ed25519ph through the Options),
// Verify exactly ed25519.VerifyWithOptions' verdict for every input;
// malformed keys and Ed25519ph messages fail their element alone, in a
// *batch.Error, where crypto/ed25519 would panic or refuse.
//
// Every signature the device makes passes a fault check before it leaves
// it: the kernel computes the nonce's point R a second time, by the comb
// over another table and with other digits, and releases the signature
// only where the two agree (kernels/ed25519_check.h). A signature whose R
// came out wrong, beside a right one of the same message, would give the
// private key; where the check fails, the element is signed on the CPU
// with crypto/ed25519 instead and counted in Stats().Faults.
package ed25519
