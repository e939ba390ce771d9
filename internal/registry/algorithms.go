package registry

import (
	"fmt"
	"slices"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/hpke"
	"github.com/gpucrypto/gpucrypto/kernels"
	"github.com/gpucrypto/gpucrypto/mlkem"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// All are gpucrypto's algorithms, in the order the tools report them.
var All = []Algorithm{
	{
		Name: "arith",
		SelfTests: []SelfTest{
			{"arith add/sub/mul 256-4096", onDevice(arith.NewEngine, (*arith.Engine).SelfTest)},
			{"modexp 512-4096", onDevice(arith.NewEngine, (*arith.Engine).SelfTestModExp)},
		},
		Programs: arithPrograms,
	},
	{
		Name:      "rsa",
		SelfTests: []SelfTest{{"rsa-2048 sign/verify/decrypt", onDevice(rsa.NewEngine, rsa.SelfTest)}},
		Programs:  rsaPrograms,
		Fuzz:      []string{"FuzzDecryptOAEP", "FuzzDecryptPKCS1v15", "FuzzVerifyPKCS1v15", "FuzzVerifyPSS", "FuzzPrivateKey", "FuzzBatchShapes"},
	},
	{
		Name:      "aes",
		SelfTests: []SelfTest{{"aes FIPS-197/SP 800-38A/GCM", onDevice(aes.NewEngine, aes.SelfTest)}},
		Programs:  aesPrograms,
		Fuzz:      []string{"FuzzGCM", "FuzzCBC", "FuzzXTS"},
	},
	{
		Name: "ecdh",
		SelfTests: []SelfTest{{"x25519/x448 RFC 7748 vectors", onDevice(ecdh.NewEngine, func(e *ecdh.Engine) error {
			return ecdh.SelfTest(e)
		})}},
		Programs: ecdhPrograms,
		Fuzz:     []string{"FuzzX25519", "FuzzX448"},
	},
	{
		Name:      "ed25519",
		SelfTests: []SelfTest{{"ed25519 RFC 8032 vectors", onDevice(ed25519.NewEngine, ed25519.SelfTest)}},
		Programs: func(d *device.Device) ([]Program, error) {
			return []Program{program("ed25519.cl", ed25519.ProgramDefines(d), "ed25519_public", "ed25519_sign", "ed25519_verify")}, nil
		},
		Fuzz: []string{"FuzzVerify", "FuzzSign", "FuzzNewKeysFromSeeds"},
	},
	{
		Name:      "ecdsa",
		SelfTests: []SelfTest{{"ecdsa P-256 signing (RFC 6979 too), verification, ECDH", onDevice(ecdsa.NewEngine, ecdsa.SelfTest)}},
		Programs: func(d *device.Device) ([]Program, error) {
			return []Program{
				program("ecdsa.cl", nil, "ecdsa_p256_verify_scalars", "ecdsa_p256_verify", "ecdsa_p256_sign_point", "ecdsa_p256_sign_finish", "ecdsa_p256_sign_check"),
				program("p256_ecdh.cl", nil, "ecdh_p256_shared_point", "ecdh_p256_public_point", "ecdh_p256_finish"),
			}, nil
		},
		Fuzz: []string{"FuzzVerifyASN1", "FuzzVerifyP1363", "FuzzSign", "FuzzECDH"},
	},
	{
		Name:      "mlkem",
		SelfTests: []SelfTest{{"ml-kem-768/1024 FIPS 203 vectors", onDevice(mlkem.NewEngine, mlkem.SelfTest)}},
		Programs:  mlkemPrograms,
		Fuzz:      []string{"FuzzDecapsulate", "FuzzEncapsulationKey"},
	},
	{
		Name:      "hpke",
		SelfTests: []SelfTest{{"hpke RFC 9180/draft-ietf-hpke-pq vectors", onDevice(hpke.NewEngine, hpke.SelfTest)}},
		Programs:  hpkePrograms,
		Fuzz:      []string{"FuzzOpen"},
	},
}

// program is the build of file with defines, reporting kernels.
func program(file string, defines map[string]string, kernelNames ...string) Program {
	return Program{Title: file, Source: kernels.Program(file, defines), Kernels: kernelNames}
}

// arithPrograms are arith.cl, and modexp's configurations: the default
// one at every modulus width (and one thread per number where the
// default has several), every variant and form at 1024 bits, and the
// fp64 variant at each of its widths (with and without its squaring at
// 1024 bits).
func arithPrograms(d *device.Device) ([]Program, error) {
	out := []Program{program("arith.cl", nil, "arith_mul_256", "arith_mul_1024", "arith_mul_4096", "arith_add_4096")}
	var configs []arith.Mont
	for _, n := range arith.ModLimbs() {
		if m, err := (arith.MontConfig{}).ResolveFor(d, n, 0); err == nil {
			configs = append(configs, m)
		}
		if n >= 48 { // one thread per number, where the default has several
			if m, err := (arith.MontConfig{Threads: 1}).Resolve(n); err == nil {
				configs = append(configs, m)
			}
		}
	}
	for _, v := range arith.Variants {
		for _, form := range []arith.Form{arith.NoFinalSub, arith.FinalSub} {
			for _, sqr := range []int{1, -1} {
				if m, err := (arith.MontConfig{Variant: v, Form: form, Sqr: sqr}).Resolve(32); err == nil {
					configs = append(configs, m)
				}
			}
		}
	}
	for _, n := range arith.FP64Limbs() {
		if m, err := (arith.MontConfig{Variant: arith.FP64}).Resolve(n); err == nil {
			configs = append(configs, m)
		}
	}
	if m, err := (arith.MontConfig{Variant: arith.FP64, Sqr: -1}).Resolve(32); err == nil {
		configs = append(configs, m)
	}
	for _, m := range configs {
		src, err := m.Source(d, m.KernelFile(), nil)
		if err != nil { // not built on this device (no fp64; see Mont.Buildable)
			continue
		}
		out = append(out, Program{Title: fmt.Sprintf("%s %d-bit %s", m.KernelFile(), 32*m.N, m), Source: src, Kernels: []string{"modexp"}})
	}
	return out, nil
}

// rsaPrograms are the programs of RSA-2048's and RSA-4096's private
// operations.
func rsaPrograms(*device.Device) ([]Program, error) {
	var out []Program
	for _, bits := range []int{2048, 4096} {
		pbs, err := rsa.KernelBuilds(bits)
		if err != nil {
			return nil, err
		}
		for _, pb := range pbs {
			out = append(out, Program{Title: pb.File + " " + pb.Desc, Source: kernels.Program(pb.File, pb.Defines), Kernels: pb.Kernels})
		}
	}
	return out, nil
}

// aesPrograms are the programs an AES engine would build on d (on a CPU
// device too, which aes.NewEngine refuses: compiling them computes nothing
// with a key).
func aesPrograms(d *device.Device) ([]Program, error) {
	pbs, err := aes.KernelBuilds(d, aes.Config{})
	var out []Program
	for _, pb := range pbs {
		out = append(out, Program{Title: pb.Source.Name + " " + pb.Desc, Source: pb.Source, Kernels: pb.Kernels})
	}
	return out, err
}

// ecdhPrograms are the programs of X25519 and X448.
func ecdhPrograms(d *device.Device) ([]Program, error) {
	return []Program{
		program("x25519.cl", ecdh.ProgramDefines(d, ecdh.X25519()), "x25519", "x25519_base_comb", "x25519_xz", "x25519_base_comb_xz", "x25519_invert_batch"),
		program("x448.cl", ecdh.ProgramDefines(d, ecdh.X448()), "x448", "x448_base_comb", "x448_xz", "x448_base_comb_xz", "x448_invert_batch"),
	}, nil
}

// mlkemPrograms is the program of ML-KEM.
func mlkemPrograms(d *device.Device) ([]Program, error) {
	defines := mlkem.ProgramDefines(d)
	kernels := mlkemKernels
	if _, ok := defines["MLKEM_MATRIX"]; ok {
		kernels = append(slices.Clip(kernels), "mlkem768_matrix", "mlkem1024_matrix")
	}
	return []Program{program("mlkem.cl", defines, kernels...)}, nil
}

// hpkePrograms are the programs of the engines an hpke engine is made of
// on d: ML-KEM's, X25519's (the ecdh engine builds X448's too) and, but
// on a CPU device, where its AES-GCM runs on the host, AES's.
func hpkePrograms(d *device.Device) ([]Program, error) {
	out, _ := mlkemPrograms(d)
	more, _ := ecdhPrograms(d)
	out = append(out, more...)
	if d.Type == device.TypeCPU {
		return out, nil
	}
	more, err := aesPrograms(d)
	return append(out, more...), err
}

// mlkemKernels are the kernels of mlkem.cl, for each parameter set, but
// the form MLKEM_MATRIX's.
var mlkemKernels = []string{
	"mlkem768_keygen", "mlkem768_expand", "mlkem768_check", "mlkem768_encapsulate", "mlkem768_decapsulate",
	"mlkem1024_keygen", "mlkem1024_expand", "mlkem1024_check", "mlkem1024_encapsulate", "mlkem1024_decapsulate",
}
