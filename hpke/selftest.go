package hpke

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// The self-test's known answers: RFC 9180 Appendix A.1.1
// (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM: the recipient's
// key, the ephemeral key, info, and the first message's additional data,
// plaintext and enc ‖ ciphertext) and the MLKEM768-X25519 vector of
// draft-ietf-hpke-pq with HKDF-SHA256 and ChaCha20Poly1305 (the
// recipient's seed, enc, the shared secret, and the key and base_nonce of
// its suite: the Engine computes its KEM and key schedule), as
// testvectors/rfc9180.json and testvectors/hpke-pq.json hold them
// (TestVectors checks them all).
const (
	selfTestRFCKey       = "4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8"
	selfTestRFCEphemeral = "52c4a758a802cd8b936eceea314432798d5baf2d7e9235dc084ab1b9cfa2f736"
	selfTestRFCInfo      = "4f6465206f6e2061204772656369616e2055726e"
	selfTestRFCAAD       = "436f756e742d30"
	selfTestRFCPlaintext = "4265617574792069732074727574682c20747275746820626561757479"
	selfTestRFCSealed    = "37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431" +
		"f938558b5d72f1a23810b4be2ab4f84331acc02fc97babc53a52ae8218a355a96d8770ac83d07bea87e13c512a"

	selfTestXWingKey     = "b3f98b03126a431ccecc62ae0f68e102c2d8e1cc7b21ba85d821d8e31761e0f8"
	selfTestXWingInfo    = "34663634363532303666366532303631323034373732363536333639363136653230353537323665"
	selfTestXWingShared  = "b90cf181d95351d1091569487caaf6c3434eeb181a2c4c04631980ce139afa67"
	selfTestXWingAEADKey = "4a4c042267e8ec360c83b2baf0d5e3dcca73a86531cdf67ec41d95bccfe12387"
	selfTestXWingNonce   = "5ddfaaee10a4dfd0d8e1b49f"
	selfTestXWingEnc     = "b440cb006466e8ee9d161b371b6fa1ec419d6a7589492378dc678fedbcf9e7debfb47f7e0b5368b0e77ef5b5866686b6" +
		"5231dbd1c1a42e0af9b0abb06c795a1af0734b450dbb60fe0486b1497d7b09d0c46617a40c5f8c8ab51c2e8e1f48023f" +
		"73b7c4716bba2e905d5fb42c3dedff166553ecf033305a57bf436317e6513deea2f65537065bb5d82dc4b8a965c3e939" +
		"b910dc6b027e01673a6e1399b93976292ef9fd81120ef2f6c47d94a1c77d9fe16ba7107a8a6a4ce9ce0d302847d60216" +
		"7de077e17dbb7e0154202f76c381c4b6d8bca51680dab4dbf373da8f09aa23d2174fb36681ce42108f7baadcb35626ba" +
		"f30a416bd79b3e249585079c277b79b7b31108ef061f25b5d4e548f6f5cc3d4c24fa0f1716843bb63ad00a78f37d2e2b" +
		"81517810abe9853829bed7b3ba309ad697d8a5f66af4dd237c25725e9c6263744bf8641d475d4792ab0535d2b4fdfcf0" +
		"c5d95118f5779521023016d49751794a1ce66f2a652436843978937562a4a5e8628d2b720890d7f3b21c151399ba7db0" +
		"3cd15516c6a94b84f6d01a37ba92cc7ac6c480dc9f67c3a066378180bcd2922d3f5c65d69fd0b96aadc055d6b05ebb11" +
		"05acc609f200e0c945a10e4e11371e23369de2069ccd7175a652c3cd09eb7f17c9b65b4aa79b26468f9b21f8c0aa8f74" +
		"71d5cfbf3697d3eedea9351597ce981e7cf745c2950070c1f82f132b48584d03ba1262cb856ff6b5ae25992df8612d24" +
		"f068b4325d3360673ed3ef6e2a57de297d5482c5cc355bc07f1d975fc6d60cd7109bf5a77a0ff7b2c5d9f4a276d30cb4" +
		"9da48b8b90b644b15a5b68fcc67c25f09a8e567cbe4fa2e2ba11c02993e9e9b4116a7c60da64a71932800aec2fb4d2ec" +
		"eef57c6fc2308f3adcd9b46a28748516284bdb4b3a36851512c5e0e6ed37ef5f00b07dc3c42667cf95cad764e47f48a9" +
		"94d17c103f8225755c76008013897c03c31043df0eb39a603e09caeaa41ae24488fe96e4d83b4ae5481045f4a7cfd7c8" +
		"0b31ce9eeb8fdecd34be1245f368ab5a3215cbcdfbe0529e1fbc4ba0041cfaba09836c25dd6219e75fbc6f143e74d686" +
		"ecd9e1a416881bc21a9129fb865e82332985798f701f7952c4e69e7b4e6bd03bffdc0c65e2a2fde89f73b8659fd2cc7d" +
		"fb070d3e95581d1bc587a2d9c4bf142fdc1f20856d3cfb64d35744ee279b829184723221e9fb19f012ab99c4bb1a904a" +
		"116727b667c5a11a0e11f3e31682b0c114345ecc3ee153bccd884654bd5a8a023aa3db878148736f6a090f92785423a9" +
		"ba2b037b3b90ee91657ba48a125360dae75a6fddfea406ca823a5e4fbb54aa8909fbd85d95d2ed256ed5d6a9194fad0d" +
		"81a44d3172abf6b90cecd1ed2080762d670db4d3437ef8e9e7d39db4b4215c33f8d19240ed4bf2de8b1076b345707043" +
		"a735bf9e96e16c8b670cf2df0ce8db638c7d84a13ee7b35266c7f0e60d2cb2e5734e9d646a871d0dfd8b4ee5f825bf79" +
		"9a1251ed21e54510e9c605bc83a0bd9673aee80e8d064a95c3c3151ffd27608173637fb9de30b3c02d96eecac05dbf7c" +
		"2fbc98b4a1f6972ce928322a22e2b75c"
)

// SelfTest checks e with known answers: RFC 9180's DHKEM(X25519) message
// opened (with its additional data) and sealed again from its ephemeral
// key, the same message with a byte of its tag flipped refused
// (ErrOpen) and one whose enc is a point of low order refused
// (ErrEncapsulation), each beside the others in one batch; the
// MLKEM768-X25519 shared secret of draft-ietf-hpke-pq's enc and the key
// and base_nonce of its suite; and MLKEM768-X25519 messages sealed with
// fresh randomness opened again. A device engine must answer from the
// device: while the self-test runs, e's calls are routed to the device
// (SetRoute: call it before e serves others), and a CPU fallback during
// the self-test is an error.
func SelfTest(e *Engine) error {
	if e.Device() != nil {
		defer e.SetRoute(batch.Route(e.route.Load()))
		e.SetRoute(batch.RouteDevice)
	}
	before := e.Stats().Fallbacks
	if err := selfTestRFC(e); err != nil {
		return fmt.Errorf("hpke: self-test %v: %w", DHKEMX25519, err)
	}
	if err := selfTestXWing(e); err != nil {
		return fmt.Errorf("hpke: self-test %v: %w", MLKEM768X25519, err)
	}
	if n := e.Stats().Fallbacks - before; n > 0 {
		return fmt.Errorf("hpke: self-test: %d device batches fell back to the CPU", n)
	}
	return nil
}

func selfTestHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("hpke: a self-test value is not hex: " + err.Error())
	}
	return b
}

func selfTestRFC(e *Engine) error {
	s := Suite{DHKEMX25519, HKDFSHA256, AES128GCM}
	k, err := NewPrivateKey(DHKEMX25519, selfTestHex(selfTestRFCKey))
	if err != nil {
		return err
	}
	defer k.Close()
	info, aad, pt, sealed := selfTestHex(selfTestRFCInfo), selfTestHex(selfTestRFCAAD), selfTestHex(selfTestRFCPlaintext), selfTestHex(selfTestRFCSealed)
	badTag := bytes.Clone(sealed)
	badTag[len(badTag)-1] ^= 1
	lowOrder := bytes.Clone(sealed)
	clear(lowOrder[:x25519Size])
	got, err := e.OpenMessages(s, []OpenInput{
		{Key: k, Info: info, AAD: aad, Ciphertext: sealed},
		{Key: k, Info: info, AAD: aad, Ciphertext: badTag},
		{Key: k, Info: info, AAD: aad, Ciphertext: lowOrder},
	})
	var per *batch.Error
	if !errors.As(err, &per) || per.Errs[0] != nil || !errors.Is(per.Errs[1], ErrOpen) || !errors.Is(per.Errs[2], ErrEncapsulation) {
		return fmt.Errorf("open: the errors %v, want none, %v and %v", err, ErrOpen, ErrEncapsulation)
	}
	if !bytes.Equal(got[0], pt) {
		return fmt.Errorf("open: plaintext %x, want %x", got[0], pt)
	}
	again, err := e.SealDerandomized(s, []SealInput{{Key: k.PublicKey(), Info: info, AAD: aad, Plaintext: pt}}, [][]byte{selfTestHex(selfTestRFCEphemeral)})
	if err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	if !bytes.Equal(again[0], sealed) {
		return fmt.Errorf("seal: %x, want %x", again[0], sealed)
	}
	return nil
}

func selfTestXWing(e *Engine) error {
	s := Suite{MLKEM768X25519, HKDFSHA256, AES128GCM}
	k, err := NewPrivateKey(MLKEM768X25519, selfTestHex(selfTestXWingKey))
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.hold(); err != nil {
		return err
	}
	j := e.newOpenJob(s, k.kem, 1)
	j.keys.one, j.cts = k, [][]byte{selfTestHex(selfTestXWingEnc)}
	ssPQ, ssT, err := j.decapsulate([]int{0})
	k.release()
	defer clearAll(ssPQ)
	defer clearAll(ssT)
	if err == nil {
		err = j.errs.Err()
	}
	if err != nil {
		return fmt.Errorf("decapsulation: %w", err)
	}
	var ss [32]byte
	sc := newScheduler(Suite{MLKEM768X25519, HKDFSHA256, 0x0003}) // the vector's AEAD, ChaCha20Poly1305
	j.sharedSecret(sc, &ss, 0, 0, ssPQ, ssT)
	if want := selfTestHex(selfTestXWingShared); !bytes.Equal(ss[:], want) {
		return fmt.Errorf("decapsulation: shared secret %x, want %x", ss, want)
	}
	var key [32]byte
	var nonce [nonceSize]byte
	sc.keyAndNonce(key[:], &nonce, ss[:], selfTestHex(selfTestXWingInfo))
	if want := selfTestHex(selfTestXWingAEADKey); !bytes.Equal(key[:], want) {
		return fmt.Errorf("key schedule: key %x, want %x", key, want)
	}
	if want := selfTestHex(selfTestXWingNonce); !bytes.Equal(nonce[:], want) {
		return fmt.Errorf("key schedule: base_nonce %x, want %x", nonce, want)
	}
	pts := [][]byte{nil, []byte("self-test"), bytes.Repeat([]byte{0xa5}, 1000)}
	sealed, err := e.Seal(s, k.PublicKey(), []byte("info"), pts)
	if err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	got, err := e.Open(s, k, []byte("info"), sealed)
	if err != nil {
		return fmt.Errorf("open of what it sealed: %w", err)
	}
	for i := range pts {
		if !bytes.Equal(got[i], pts[i]) {
			return fmt.Errorf("open of what it sealed: message %d is %x, want %x", i, got[i], pts[i])
		}
	}
	return nil
}
