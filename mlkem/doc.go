// Package mlkem computes ML-KEM-768 and ML-KEM-1024 (FIPS 203) in
// batches on a GPU, byte for byte as crypto/mlkem does: an Engine derives
// the encapsulation keys of decapsulation keys, encapsulates shared keys
// to encapsulation keys and decapsulates ciphertexts, for whole batches
// (on a device, or on the CPU cores with crypto/mlkem).
//
// Keys and ciphertexts are crypto/mlkem's byte strings: a decapsulation
// key is its 64-byte seed d ‖ z (crypto/mlkem's DecapsulationKey768.Bytes,
// the input of NewDecapsulationKey768), an encapsulation key the bytes of
// EncapsulationKey768.Bytes. An encapsulation key that fails FIPS 203's
// modulus check, a seed, ciphertext or randomness of the wrong length
// fails its element alone, in a *batch.Error, where crypto/mlkem returns
// an error; the other elements are computed.
//
// Decapsulation is constant-time in the key, the message and the
// ciphertext's validity (kernels/mlkem.cl says how), and the buffers that
// held seeds, messages and shared keys are zeroed after use.
package mlkem
