package mlkem

import "crypto/mlkem"

// The sizes of crypto/mlkem's byte strings.
const (
	// SeedSize is the size of a decapsulation key's seed, d ‖ z.
	SeedSize = mlkem.SeedSize
	// SharedKeySize is the size of a shared key.
	SharedKeySize = mlkem.SharedKeySize
	// RandomnessSize is the size of the randomness of one encapsulation
	// (FIPS 203's message m), which EncapsulateDerandomized768 and
	// EncapsulateDerandomized1024 take.
	RandomnessSize = 32

	EncapsulationKeySize768  = mlkem.EncapsulationKeySize768
	CiphertextSize768        = mlkem.CiphertextSize768
	EncapsulationKeySize1024 = mlkem.EncapsulationKeySize1024
	CiphertextSize1024       = mlkem.CiphertextSize1024
)

// params is one parameter set: its sizes, the names of its kernels, and
// crypto/mlkem's functions for it (the CPU path and the result check).
type params struct {
	name   string // "ML-KEM-768"
	kernel string // the kernels' prefix in kernels/mlkem.cl
	k      int    // the module's rank
	du, dv int    // the ciphertext's compression

	ekSize, ctSize int

	// newDecapsulationKey is crypto/mlkem's NewDecapsulationKey768 or
	// NewDecapsulationKey1024
	newDecapsulationKey func(seed []byte) (decapsulator, error)
	// newEncapsulationKey is crypto/mlkem's NewEncapsulationKey768 or
	// NewEncapsulationKey1024
	newEncapsulationKey func(ek []byte) (encapsulator, error)
	// encapsulate is crypto/mlkem/mlkemtest's Encapsulate768 or
	// Encapsulate1024 on a key of newEncapsulationKey (m: RandomnessSize
	// bytes), nil where the toolchain has no mlkemtest (derandomized.go)
	encapsulate func(ek encapsulator, m []byte) (shared, ciphertext []byte, err error)
}

// decapsulator is a decapsulation key of crypto/mlkem.
type decapsulator interface {
	Decapsulate(ciphertext []byte) (sharedKey []byte, err error)
	// encapsulationKey is the bytes of the key's encapsulation key
	encapsulationKey() []byte
}

// encapsulator is an encapsulation key of crypto/mlkem (the methods of
// Go 1.26's crypto.Encapsulator).
type encapsulator interface {
	Bytes() []byte
	Encapsulate() (sharedKey, ciphertext []byte)
}

// decapsulator768 and decapsulator1024 are crypto/mlkem's keys as
// decapsulators.
type (
	decapsulator768  struct{ *mlkem.DecapsulationKey768 }
	decapsulator1024 struct{ *mlkem.DecapsulationKey1024 }
)

func (k decapsulator768) encapsulationKey() []byte  { return k.EncapsulationKey().Bytes() }
func (k decapsulator1024) encapsulationKey() []byte { return k.EncapsulationKey().Bytes() }

// expandedSize is the size of FIPS 203's decapsulation key dk = dk_PKE ‖
// ek ‖ H(ek) ‖ z, the form the decapsulation kernel takes.
func (p *params) expandedSize() int { return 384*p.k + p.ekSize + 64 }

var mlkem768 = &params{
	name: "ML-KEM-768", kernel: "mlkem768", k: 3, du: 10, dv: 4,
	ekSize: EncapsulationKeySize768, ctSize: CiphertextSize768,
	newDecapsulationKey: func(seed []byte) (decapsulator, error) {
		k, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			return nil, err
		}
		return decapsulator768{k}, nil
	},
	newEncapsulationKey: func(ek []byte) (encapsulator, error) {
		k, err := mlkem.NewEncapsulationKey768(ek)
		if err != nil {
			return nil, err
		}
		return k, nil
	},
	encapsulate: encapsulate768,
}

var mlkem1024 = &params{
	name: "ML-KEM-1024", kernel: "mlkem1024", k: 4, du: 11, dv: 5,
	ekSize: EncapsulationKeySize1024, ctSize: CiphertextSize1024,
	newDecapsulationKey: func(seed []byte) (decapsulator, error) {
		k, err := mlkem.NewDecapsulationKey1024(seed)
		if err != nil {
			return nil, err
		}
		return decapsulator1024{k}, nil
	},
	newEncapsulationKey: func(ek []byte) (encapsulator, error) {
		k, err := mlkem.NewEncapsulationKey1024(ek)
		if err != nil {
			return nil, err
		}
		return k, nil
	},
	encapsulate: encapsulate1024,
}
