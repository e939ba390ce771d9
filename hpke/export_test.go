package hpke

import (
	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

// SetCallChunk sets the most messages of one batch of a call; the
// returned function restores it.
func SetCallChunk(n int) (restore func()) {
	old := callChunk
	callChunk = n
	return func() { callChunk = old }
}

// UseAESEngine makes e run every AES-GCM step on a (aes.CPUEngine(), on
// a machine whose device aes refuses): the path of aes.Key per message
// and one aes call, which a GPU engine takes where it measured it faster.
// e's Close closes a.
func UseAESEngine(e *Engine, a *aes.Engine) {
	e.aead = a
	e.route.Store(int32(batch.RouteDevice))
}

// UsesAESEngine reports whether e has an aes.Engine.
func UsesAESEngine(e *Engine) bool { return e.aead != nil }

// SharedSecrets are the KEM shared secrets of ciphertexts (enc first)
// under k, as the Engine's Open computes them, and the per-element errors
// (s's KDF and AEAD unused).
func SharedSecrets(e *Engine, s Suite, k *PrivateKey, ciphertexts [][]byte) ([][]byte, error) {
	p, err := s.KEM.params()
	if err != nil {
		return nil, err
	}
	j := e.newOpenJob(s, p, len(ciphertexts))
	j.keys.one, j.cts = k, ciphertexts
	idx := make([]int, 0, len(ciphertexts))
	for i := range ciphertexts {
		if len(ciphertexts[i]) < p.encSize {
			j.errs.Set(i, ErrCiphertextShort)
			continue
		}
		idx = append(idx, i)
	}
	ssPQ, ssT, err := j.decapsulate(idx)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(ciphertexts))
	sc := newScheduler(s)
	for k, i := range idx {
		if j.errs.Get(i) == nil {
			var ss [32]byte
			j.sharedSecret(sc, &ss, i, k, ssPQ, ssT)
			out[i] = ss[:]
		}
	}
	return out, j.errs.Err()
}

// KeySchedule is the key (of keySize bytes) and base_nonce of the shared
// secret ss under info in suite s, whose AEAD may be one the Engine does
// not compute (its identifier is only hashed).
func KeySchedule(s Suite, ss, info []byte, keySize int) (key, nonce []byte) {
	key = make([]byte, keySize)
	var n [nonceSize]byte
	newScheduler(s).keyAndNonce(key, &n, ss, info)
	return key, n[:]
}

// KeyBytes are the secrets k holds: the serialized key, the ML-KEM seed
// and the X25519 scalar (nil where the KEM has none).
func KeyBytes(k *PrivateKey) [][]byte { return [][]byte{k.serialized, k.pqSeed, k.scalar} }
