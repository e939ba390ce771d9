// Package rsa computes batches of RSA operations on a GPU (OpenCL or CUDA),
// or on the CPU cores: on machines without a GPU, for calls the CPU
// computes faster, and for device failures.
// Keys are crypto/rsa's: import crypto/rsa under another name.
//
// An Engine signs, decrypts, encrypts and verifies whole batches: parallel
// slices in, one result per element out, each element with its own key
// (any mix of 1024- to 4096-bit two-prime keys). An element that fails
// (bad key, wrong length, bad padding) fails alone, in a *batch.Error.
// Results match crypto/rsa: PKCS #1 v1.5 signatures are byte-identical to
// rsa.SignPKCS1v15's, PSS and OAEP follow rsa.SignPSS and rsa.DecryptOAEP,
// including their salt-length options and error values (ErrDecryption,
// ErrVerification and ErrMessageTooLong are crypto/rsa's).
//
// A Server gathers single operations from many goroutines into batches for
// one or more engines, and its Signers are crypto.Signer and
// crypto.Decrypter values that crypto/tls and crypto/x509 accept in place
// of the *rsa.PrivateKey.
//
// # Keys
//
// Keys are validated when first used (crypto/rsa's Validate on a copy, and
// sizes, exponent, two primes) and prepared once per key pointer; the
// prepared form is dropped when the key is garbage-collected. Keys must not
// be modified after their first use.
//
// # Fault check
//
// Private-key operations use the Chinese remainder theorem, where one
// faulty half would reveal a prime factor of the modulus in the result. So
// every private result is checked against the public key (result^e mod n
// must give the input back) before it leaves the device or the CPU code; a
// failed check is the element's error (ErrFault), never a value.
//
// # Constant time
//
// Padding checks of decryption (OAEP, PKCS #1 v1.5 and its session-key
// variant) run in constant time: no branch or memory index depends on the
// decrypted bytes, and every failure is the same ErrDecryption. The CPU
// computes private operations and their fault checks with
// filippo.io/bigmod, the constant-time modular arithmetic of crypto/rsa
// itself: no branch and no memory index depends on the key or the value.
// Engine.SetBlinding adds defence in depth: it multiplies every private
// input by a random r^e (and the result by r^-1), so that no chosen input
// reaches the exponentiation. The device kernels run private operations
// with fixed windows and read table entries by masked scans: no branch and
// no memory index depends on the key there either.
//
// # Fallback
//
// When the device fails during a batch (a driver error, a lost device), or
// a result fails the host's sampled check (Engine.SetResultCheck), the
// Engine recomputes that batch on the CPU, reports the failure through
// OnFallback and the logger of SetLogger (none by default: nothing is
// logged unless asked) and counts it in Stats. Only whole-batch failures
// fall back; per-element errors (ErrFault from the device's own check
// included) are returned as they are.
package rsa
