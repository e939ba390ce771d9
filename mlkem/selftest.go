package mlkem

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// selfTestVectors are a seed d ‖ z and a message m of each parameter set
// (the d, z and m of C2SP's intermediate values,
// testvectors/cctv-mlkem/intermediate) with crypto/mlkem's answers: the
// SHA3-256 of the encapsulation key, the shared key and the SHA3-256 of
// the ciphertext of m (mlkemtest's derandomized encapsulation), and the
// implicit-rejection key of that ciphertext with its first bit flipped
// (TestSelfTestVectors recomputes them all).
var selfTestVectors = []struct {
	p                                     *params
	seed, m, ekHash, shared, ctHash, bent string
}{
	{mlkem768,
		"f688563f7c66a5da2d8bdb5a5f3e07bd8dce6f7efcec7f41298d79863459f7cdd1d49a515250dbceb9f6e3fcc1c7d5306918964b21ddb22207e03e57f0600da8",
		"3dc27ca0a6594b0e56320457c45a0f76bb8a213ea4a76d442186a0aefadbcdb9",
		"42d930a50dfd1f0541ca45c4598daebb4f51cd10d711a001bd9bb87d5c87a4bf",
		"ae726da2df66601c6648a7565c02b203a089276ac30f6cc226d048f93fafd78c",
		"9d6e358208c4d583050becb319050b7f916de47caad1d589a1d01fea43fe1750",
		"1f0bef3a759df1d418ffa57f299ee03cc707c3d0e91182c5749bee33417a0c78"},
	{mlkem1024,
		"2a62c39ef4fc499f2d132716f480bb7521a49558ae84ee80d9352e66daf1e3a85f574ef7f013d4336801fed022178c3ed91d0b6d51325315fc1dcabf4770a2ea",
		"e07d685ed308e609c9c7842026e35732f6ffc6e2fee10f0afd348f2b42a8acb4",
		"3b308d1344ed70366b84d790acb705b86cd3dfd471fff171969aaa338f26dca5",
		"d53825c3ff666bb2881215dbec04a8bdce9099b2a3680938c2f199b54d505953",
		"8caba02733421f12a7ba9a2bcbe4de7c9853156a0637df5a7a0f9127c81da943",
		"2d3398ff5234bbe6c2a6049ec777b392dc2e8eda7b3dfc4b16ea874e669a23d7"},
}

// SelfTest checks e with known answers for ML-KEM-768 and ML-KEM-1024:
// the encapsulation key of a seed (KeyGen768), the shared key and
// ciphertext of a derandomized encapsulation to it, the refusal of a copy
// of the key that fails the modulus check, the decapsulation of the
// ciphertext and the implicit rejection of a corrupted copy. A device
// engine must answer from the device: while the self-test runs, e's calls
// are routed to the device (SetRoute: call it before e serves others),
// and a CPU fallback during the self-test is an error.
func SelfTest(e *Engine) error { return e.core.SelfTest(func() error { return selfTest(e) }) }

// selfTest is SelfTest's test.
func selfTest(e *Engine) error {
	if e.Device() != nil {
		defer e.SetRoute(e.core.Route())
		e.SetRoute(batch.RouteDevice)
	}
	before := e.Stats().Fallbacks
	for _, v := range selfTestVectors {
		if err := selfTestOne(e, v.p, selfTestHex(v.seed), selfTestHex(v.m), selfTestHex(v.ekHash),
			selfTestHex(v.shared), selfTestHex(v.ctHash), selfTestHex(v.bent)); err != nil {
			return fmt.Errorf("mlkem: self-test %s: %w", v.p.name, err)
		}
	}
	if e.Stats().Fallbacks != before {
		return errors.New("mlkem: self-test: the device failed and the CPU answered")
	}
	return nil
}

func selfTestOne(e *Engine, p *params, seed, m, ekHash, shared, ctHash, bent []byte) error {
	eks, err := e.keyGen(p, [][]byte{seed})
	if err != nil {
		return fmt.Errorf("key generation: %w", err)
	}
	ek := eks[0]
	if h := sha3.Sum256(ek); !bytes.Equal(h[:], ekHash) {
		return fmt.Errorf("key generation: an encapsulation key of SHA3-256 %x, want %x", h, ekHash)
	}
	// the key, and a copy whose first coefficient is 2^12 − 1, not below q
	bad := bytes.Clone(ek)
	bad[0], bad[1] = 0xff, bad[1]|0x0f
	keys, cts, err := e.encapsulate(p, [][]byte{ek, bad}, [][]byte{m, m})
	var be *batch.Error
	if !errors.As(err, &be) || be.Errs[0] != nil || !errors.Is(be.Errs[1], ErrEncapsulationKey) {
		return fmt.Errorf("encapsulation: %v, want the second key alone refused by the modulus check", err)
	}
	if !bytes.Equal(keys[0], shared) {
		return fmt.Errorf("encapsulation: shared key %x, want %x", keys[0], shared)
	}
	if h := sha3.Sum256(cts[0]); !bytes.Equal(h[:], ctHash) {
		return fmt.Errorf("encapsulation: a ciphertext of SHA3-256 %x, want %x", h, ctHash)
	}
	corrupted := bytes.Clone(cts[0])
	corrupted[0] ^= 1
	got, err := e.decapsulate(p, [][]byte{seed, seed}, [][]byte{cts[0], corrupted})
	if err != nil {
		return fmt.Errorf("decapsulation: %w", err)
	}
	if !bytes.Equal(got[0], shared) {
		return fmt.Errorf("decapsulation: shared key %x, want %x", got[0], shared)
	}
	if !bytes.Equal(got[1], bent) {
		return fmt.Errorf("decapsulation of a corrupted ciphertext: %x, want the implicit-rejection key %x", got[1], bent)
	}
	return nil
}

func selfTestHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("mlkem: bad embedded vector: " + err.Error())
	}
	return b
}
