// Package ecdsa verifies ECDSA signatures over NIST P-256 in batches on a
// GPU, with exactly crypto/ecdsa's verdicts: an Engine verifies whole
// batches on a device, or on the CPU cores with crypto/ecdsa.
//
// Keys are crypto/ecdsa's; signatures are ASN.1 DER (as ecdsa.SignASN1
// gives them and VerifyASN1 takes them) or IEEE P1363's r ‖ s (JOSE's
// ES256). Keys on other curves are verified by crypto/ecdsa on the CPU.
// Signing and ECDH over P-256 are not here yet.
package ecdsa
