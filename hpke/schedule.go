package hpke

import (
	"crypto/sha256"
	"crypto/sha3"
	"hash"
)

// The host's part of every message: the KEM's combiner (X-Wing's SHA3-256,
// DHKEM's ExtractAndExpand) and the key schedule of base mode (RFC 9180
// §5.1) with HKDF-SHA256, written out for the lengths of these suites so
// that a message costs a dozen SHA-256 blocks and no allocation: every
// output is at most one HMAC block (32 bytes), so LabeledExpand is
// HMAC(prk, I2OSP(L, 2) ‖ "HPKE-v1" ‖ suite_id ‖ label ‖ info ‖ 0x01)
// cut to L bytes.

// xwingLabel is MLKEM768-X25519's combiner label, the six bytes \.//^\
// (draft-ietf-hpke-pq; X-Wing's).
const xwingLabel = `\./` + `/^\`

// scheduler computes the host's part for one core: its hash and buffers
// are reused from message to message (zeroed by clear where they held
// secrets).
type scheduler struct {
	h     hash.Hash // SHA-256
	pad   [64]byte  // HMAC's key block
	inner [32]byte  // HMAC's inner hash
	sum   [32]byte  // HMAC's result (the hash writes here, not into the caller's memory, which would then escape)
	msg   []byte    // the message being authenticated
	// context is the key schedule's key_schedule_context of the info last
	// computed (contextInfo): 0x00 ‖ psk_id_hash ‖ info_hash
	context     [65]byte
	contextInfo []byte
	contextSet  bool
	suite       [10]byte
}

func newScheduler(s Suite) *scheduler {
	return &scheduler{h: sha256.New(), msg: make([]byte, 0, 256), suite: s.id()}
}

// mac sets out to HMAC-SHA256(key, msg), key at most 64 bytes.
func (s *scheduler) mac(out *[32]byte, key, msg []byte) {
	clear(s.pad[:])
	copy(s.pad[:], key)
	for i := range s.pad {
		s.pad[i] ^= 0x36
	}
	s.h.Reset()
	s.h.Write(s.pad[:])
	s.h.Write(msg)
	s.h.Sum(s.inner[:0])
	for i := range s.pad {
		s.pad[i] ^= 0x36 ^ 0x5c
	}
	s.h.Reset()
	s.h.Write(s.pad[:])
	s.h.Write(s.inner[:])
	s.h.Sum(s.sum[:0])
	*out = s.sum
	clear(s.pad[:])
	clear(s.inner[:])
	clear(s.sum[:])
}

// labeled starts s.msg with "HPKE-v1" ‖ suite ‖ label, after I2OSP(L, 2)
// when length ≥ 0 (LabeledExpand's info; LabeledExtract's input has no
// length).
func (s *scheduler) labeled(length int, suite []byte, label string) {
	s.msg = s.msg[:0]
	if length >= 0 {
		s.msg = append(s.msg, byte(length>>8), byte(length))
	}
	s.msg = append(s.msg, "HPKE-v1"...)
	s.msg = append(s.msg, suite...)
	s.msg = append(s.msg, label...)
}

// keyScheduleContext sets s.context for info: base mode's
// key_schedule_context = 0x00 ‖ LabeledExtract("", "psk_id_hash", "") ‖
// LabeledExtract("", "info_hash", info), computed again only when info is
// not the one before (the same bytes: info is public).
func (s *scheduler) keyScheduleContext(info []byte) {
	if s.contextSet && string(info) == string(s.contextInfo) {
		return
	}
	var h [32]byte
	s.context[0] = 0
	s.labeled(-1, s.suite[:], "psk_id_hash")
	s.mac(&h, nil, s.msg)
	copy(s.context[1:33], h[:])
	s.labeled(-1, s.suite[:], "info_hash")
	s.msg = append(s.msg, info...)
	s.mac(&h, nil, s.msg)
	copy(s.context[33:], h[:])
	s.contextInfo = append(s.contextInfo[:0], info...)
	s.contextSet = true
}

// keyAndNonce derives the AEAD key (keySize bytes, into key) and
// base_nonce of the shared secret ss under info: secret =
// LabeledExtract(ss, "secret", ""), key = LabeledExpand(secret, "key",
// context, Nk), base_nonce = LabeledExpand(secret, "base_nonce",
// context, Nn). The first message of a context has sequence number 0, so
// its nonce is base_nonce.
func (s *scheduler) keyAndNonce(key []byte, nonce *[nonceSize]byte, ss, info []byte) {
	s.keyScheduleContext(info)
	var secret, t [32]byte
	s.labeled(-1, s.suite[:], "secret")
	s.mac(&secret, ss, s.msg)
	s.labeled(len(key), s.suite[:], "key")
	s.msg = append(s.msg, s.context[:]...)
	s.msg = append(s.msg, 1)
	s.mac(&t, secret[:], s.msg)
	copy(key, t[:])
	s.labeled(nonceSize, s.suite[:], "base_nonce")
	s.msg = append(s.msg, s.context[:]...)
	s.msg = append(s.msg, 1)
	s.mac(&t, secret[:], s.msg)
	copy(nonce[:], t[:])
	clear(secret[:])
	clear(t[:])
}

// dhkemSuite is DHKEM(X25519)'s suite_id of its ExtractAndExpand:
// "KEM" ‖ I2OSP(0x0020, 2).
var dhkemSuite = []byte{'K', 'E', 'M', 0x00, 0x20}

// dhkemShared sets ss to DHKEM(X25519)'s shared secret of the
// Diffie–Hellman value dh, the encapsulated key enc and the recipient's
// public key pkR (RFC 9180 §4.1): eae_prk = LabeledExtract("",
// "eae_prk", dh), shared_secret = LabeledExpand(eae_prk,
// "shared_secret", enc ‖ pkR, 32).
func (s *scheduler) dhkemShared(ss *[32]byte, dh, enc, pkR []byte) {
	var prk [32]byte
	s.labeled(-1, dhkemSuite, "eae_prk")
	s.msg = append(s.msg, dh...)
	s.mac(&prk, nil, s.msg)
	clear(s.msg) // dh
	s.labeled(32, dhkemSuite, "shared_secret")
	s.msg = append(s.msg, enc...)
	s.msg = append(s.msg, pkR...)
	s.msg = append(s.msg, 1)
	s.mac(ss, prk[:], s.msg)
	clear(prk[:])
}

// xwingShared sets ss to MLKEM768-X25519's shared secret: SHA3-256(ssPQ
// ‖ ssT ‖ ctT ‖ pkT ‖ label), as crypto/hpke's hybrid KEM hashes them
// (the ML-KEM shared key, the X25519 shared secret, the ephemeral X25519
// public key of enc, the recipient's X25519 public key).
func (s *scheduler) xwingShared(ss *[32]byte, ssPQ, ssT, ctT, pkT []byte) {
	s.msg = append(s.msg[:0], ssPQ...)
	s.msg = append(s.msg, ssT...)
	s.msg = append(s.msg, ctT...)
	s.msg = append(s.msg, pkT...)
	s.msg = append(s.msg, xwingLabel...)
	*ss = sha3.Sum256(s.msg)
	clear(s.msg)
}
