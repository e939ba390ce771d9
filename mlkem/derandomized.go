//go:build go1.26

package mlkem

import (
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
)

// encapsulate768 and encapsulate1024 are crypto/mlkem/mlkemtest's
// derandomized encapsulations (Go 1.26), on a key of crypto/mlkem.
func encapsulate768(ek encapsulator, m []byte) ([]byte, []byte, error) {
	return mlkemtest.Encapsulate768(ek.(*mlkem.EncapsulationKey768), m)
}

func encapsulate1024(ek encapsulator, m []byte) ([]byte, []byte, error) {
	return mlkemtest.Encapsulate1024(ek.(*mlkem.EncapsulationKey1024), m)
}
