package mlkem

import (
	"errors"
	"fmt"
)

// The errors of elements that crypto/mlkem refuses. Each element's error
// wraps one of them and crypto/mlkem's own error for the element.
var (
	// ErrSeedLength: a decapsulation key's seed not of SeedSize bytes.
	ErrSeedLength = errors.New("mlkem: a decapsulation key seed of the wrong length")
	// ErrEncapsulationKeyLength: an encapsulation key not of the
	// parameter set's size.
	ErrEncapsulationKeyLength = errors.New("mlkem: an encapsulation key of the wrong length")
	// ErrEncapsulationKey: an encapsulation key that fails FIPS 203's
	// modulus check (a coefficient of 12 bits not below q).
	ErrEncapsulationKey = errors.New("mlkem: an encapsulation key that fails the modulus check")
	// ErrCiphertextLength: a ciphertext not of the parameter set's size.
	ErrCiphertextLength = errors.New("mlkem: a ciphertext of the wrong length")
	// ErrRandomnessLength: an encapsulation's randomness not of
	// RandomnessSize bytes.
	ErrRandomnessLength = errors.New("mlkem: encapsulation randomness of the wrong length")
)

// errNoDerandomized is the error of a derandomized encapsulation on the
// CPU where the toolchain has no crypto/mlkem/mlkemtest (before Go 1.26).
var errNoDerandomized = errors.New("mlkem: derandomized encapsulation on the CPU needs Go 1.26 (crypto/mlkem/mlkemtest)")

// seedError is the error of a seed of the wrong length, nil for one of
// SeedSize bytes.
func (p *params) seedError(seed []byte) error {
	if len(seed) == SeedSize {
		return nil
	}
	_, std := p.newDecapsulationKey(seed)
	return fmt.Errorf("%w: %s, %d bytes (crypto/mlkem: %w)", ErrSeedLength, p.name, len(seed), std)
}

// ciphertextError is the error of a ciphertext of the wrong length, nil
// for one of the parameter set's size.
func (p *params) ciphertextError(ct []byte) error {
	if len(ct) == p.ctSize {
		return nil
	}
	return fmt.Errorf("%w: %s, %d bytes, want %d", ErrCiphertextLength, p.name, len(ct), p.ctSize)
}

// randomnessError is the error of randomness of the wrong length, nil for
// RandomnessSize bytes.
func randomnessError(m []byte) error {
	if len(m) == RandomnessSize {
		return nil
	}
	return fmt.Errorf("%w: %d bytes, want %d", ErrRandomnessLength, len(m), RandomnessSize)
}

// encapsulationKeyLengthError is the error of an encapsulation key of the
// wrong length, nil for one of the parameter set's size.
func (p *params) encapsulationKeyLengthError(ek []byte) error {
	if len(ek) == p.ekSize {
		return nil
	}
	_, std := p.newEncapsulationKey(ek)
	return fmt.Errorf("%w: %s, %d bytes, want %d (crypto/mlkem: %w)", ErrEncapsulationKeyLength, p.name, len(ek), p.ekSize, std)
}

// modulusError is the error of an encapsulation key that fails the
// modulus check (a kernel's verdict), with crypto/mlkem's: a key that
// crypto/mlkem takes is not refused here (nil).
func (p *params) modulusError(ek []byte) error {
	if _, std := p.newEncapsulationKey(ek); std != nil {
		return fmt.Errorf("%w: %s (crypto/mlkem: %w)", ErrEncapsulationKey, p.name, std)
	}
	return nil
}
