// Package hpke seals and opens HPKE messages (RFC 9180) in batches, for a
// gateway that holds many: each message's KEM, key schedule and AEAD,
// byte for byte as Go's crypto/hpke computes them, with the KEM steps
// and AES-GCM on a GPU where that is faster.
//
// # Suites
//
// Base mode, single-shot: each message has an encapsulated key enc of its
// own and is the first message of its context, as crypto/hpke's Seal and
// Open make them (a ciphertext is enc ‖ sealed message ‖ tag). The KEMs
// are MLKEM768X25519 (X-Wing, draft-ietf-hpke-pq), MLKEM768 alone and
// DHKEMX25519 (DHKEM(X25519, HKDF-SHA256)); the KDF HKDFSHA256; the AEADs
// AES128GCM and AES256GCM. Keys are crypto/hpke's bytes (NewPrivateKey
// takes what its PrivateKey.Bytes gives, NewPublicKey what
// PublicKey.Bytes gives; with Go 1.26, PrivateKeyOf and PublicKeyOf take
// crypto/hpke's keys), so a key pair made by either works with both.
// The message forms (OpenMessages, SealMessages) take RFC 9180's
// additional data too, which crypto/hpke's single-shot functions leave
// empty.
//
// # Where each step runs
//
// An Engine (NewEngine on a device, CPUEngine on the CPU cores, Auto
// picks) is made of the engines of the other packages, on one device:
//
//   - the decapsulations (Open) or encapsulations (Seal) of ML-KEM-768 as
//     one batch of an mlkem.Engine, and the X25519 shared secrets (and,
//     sealing, the ephemeral public keys) as batches of an ecdh.Engine,
//     at the same time; each engine computes its batch on the device or
//     on the CPU, where it measured that faster;
//   - the KEM's combiner (MLKEM768-X25519's SHA3-256 of both secrets and
//     the X25519 public values; DHKEM's ExtractAndExpand) and the key
//     schedule (LabeledExtract and LabeledExpand of HKDF-SHA256 under the
//     suite's identifier) on all host cores;
//   - AES-GCM in the same host pass (crypto/cipher), or as one batch of
//     an aes.Engine, where the Engine measured that faster (the aes.Engine
//     needs an aes.Key of each message's key, whose expansion costs more
//     host time than crypto/cipher's whole message for short messages).
//     On a CPU device, which aes refuses, AES-GCM runs on the host.
//
// A call of more than 65,536 messages runs as batches of about equal
// size, three at once, so that the host's part of one overlaps the
// device's part of another.
//
// # Errors
//
// A message that does not open fails alone, with crypto/hpke's verdict:
// its result is nil and its error, in the returned *batch.Error, is
// ErrCiphertextShort (shorter than enc), ErrEncapsulation (enc's X25519
// part a point of low order) or ErrOpen (it does not authenticate); a
// message that opens has a plaintext that is not nil, even when empty.
// A bad key fails the call (Open, Seal) or its element (OpenMessages,
// SealMessages).
//
// # Secrets
//
// A PrivateKey holds its bytes until Close zeroes them; the engines its
// seeds and scalars are handed to zero the staging and device buffers
// they copy them into after use, as their packages say. The shared secrets of the KEMs, the
// combined secret, the key schedule's secret and the AEAD keys are zeroed
// once the message is sealed or opened, but for the copies crypto/aes and
// crypto/cipher keep in their own values (of the host's AES-GCM), which
// are left to the garbage collector, and the aes.Keys of the aes.Engine's
// path, which are closed (zeroed) after the call.
package hpke
