// Package ecdsa signs and verifies ECDSA signatures over NIST P-256 in
// batches on a GPU: an Engine signs (nonces hedged as crypto/ecdsa makes
// them; every signature verifies under crypto/ecdsa) and verifies (exactly
// crypto/ecdsa's verdicts) whole batches on a device, or on the CPU cores
// with crypto/ecdsa.
//
// Keys are crypto/ecdsa's; signatures are ASN.1 DER (as ecdsa.SignASN1
// gives them and VerifyASN1 takes them) or IEEE P1363's r ‖ s (JOSE's
// ES256). Keys on other curves fail their element (ErrCurve).
// A Server batches single requests from many goroutines and gives
// crypto.Signer values for crypto/tls and crypto/x509. ECDH over P-256 is
// not here yet.
package ecdsa
