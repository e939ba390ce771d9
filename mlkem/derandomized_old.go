//go:build !go1.26

package mlkem

// Before Go 1.26 the standard library has no derandomized encapsulation
// (crypto/mlkem/mlkemtest): the CPU path of EncapsulateDerandomized768
// and EncapsulateDerandomized1024 fails its elements
// (errNoDerandomized), and encapsulation results are not checked
// (SetResultCheck).
var (
	encapsulate768  func(ek encapsulator, m []byte) ([]byte, []byte, error)
	encapsulate1024 func(ek encapsulator, m []byte) ([]byte, []byte, error)
)
