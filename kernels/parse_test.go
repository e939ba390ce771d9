package kernels

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/kernels/internal/generate"
)

// cShim maps what the OpenCL C side of dialect.h and fp64.h uses to C99,
// so that gcc can check a source's syntax and that every function it calls
// is declared (the generated code a program needs is there).
const cShim = `#include <math.h>
typedef unsigned char uchar;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef struct { uint x, y, z, w; } uint4;
#define min(a, b) ((a) < (b) ? (a) : (b))
#define get_global_size(i) 1u
#define __kernel
#define __global
#define __local
#define __constant const
#define get_global_id(i) 0u
#define get_local_id(i) 0u
#define get_local_size(i) 1u
#define barrier(x) ((void)0)
#define GPUCRYPTO_HAS_FP64 1
static inline ulong as_ulong(double x) { union { double d; ulong u; } v; v.d = x; return v.u; }
static inline double as_double(ulong x) { union { double d; ulong u; } v; v.u = x; return v.d; }
`

// hostBuild is a kernel file and the options a host builds it with.
type hostBuild struct {
	file    string
	defines map[string]string
}

// hostBuilds are the builds the hosts ask for: modexp.cl at every width,
// variant and squaring, rsa.cl for every pair of half and full widths that
// fits (F ≤ 2H) and the public form, modexp_fp64.cl at every fp64 width,
// the AES programs in both table layouts, arith.cl and both curves (and
// their test programs of RFC 7748's iterated vectors).
func hostBuilds() []hostBuild {
	var bs []hostBuild
	ws := generate.MontWidths()
	for _, w := range ws {
		for _, variant := range generate.MontVariants {
			for _, sqr := range []bool{false, true} {
				if (variant != "fips" || generate.MontHasFIPS(w)) && (!sqr || generate.MontHasSqr(w)) {
					bs = append(bs, hostBuild{"modexp.cl", montDefines(w, variant, sqr, w%2 == 0)})
				}
			}
		}
		for _, f := range ws {
			if f < w || f > 2*w {
				continue
			}
			d := montDefines(w, "cios", false, false)
			d["RSA_FW"] = strconv.Itoa(f)
			d[fmt.Sprintf("MONT_WANT_%d", f)] = ""
			if f != w {
				d["RSA_PRIVATE"] = ""
			}
			bs = append(bs, hostBuild{"rsa.cl", d})
			if f == 2*w && f%16 == 0 { // the check apart (rsa/device.go checkForm)
				apart := maps.Clone(d)
				apart["RSA_CHECK_APART"] = ""
				bs = append(bs, hostBuild{"rsa.cl", apart}, hostBuild{"rsa_check.cl", map[string]string{
					"MT_N": strconv.Itoa(f), "LANES": "4", "LANES_WG": "128", "WINDOW": "1", "RSA_HW": strconv.Itoa(w)}})
			}
		}
	}
	for _, n := range generate.FP64Limbs {
		d := montDefines(n, "cios", false, false)
		d[fmt.Sprintf("FP64_WANT_%d", n)] = ""
		d["FP64_SQR"] = "0"
		if generate.FP64HasSqr(n) {
			d["FP64_SQR"] = "1"
		}
		bs = append(bs, hostBuild{"modexp_fp64.cl", d})
	}
	for _, wide := range []string{"0", "1"} {
		for _, file := range []string{"aes.cl", "aes_modes.cl"} {
			// the key record's layout as aes/engine.go gives it
			bs = append(bs, hostBuild{file, map[string]string{"AES_TABLES_WIDE": wide, "AES_GROUP": "256", "GCM_SEGMENT": "16",
				"KEY_RECORD_ROUNDS": "60", "KEY_RECORD_H": "64", "KEY_RECORD_LEVELS": "80", "MODE_RECORD_WORDS": "64"}})
		}
	}
	fp64Ladder := map[string]string{"LADDER_FP64": "1"}
	return append(bs, hostBuild{"arith.cl", nil}, hostBuild{"x25519.cl", nil}, hostBuild{"x448.cl", nil},
		hostBuild{"x25519.cl", fp64Ladder})
}

// TestSourcesParseAsC compiles every host build with gcc -fsyntax-only
// (the portable limb path, the OpenCL words mapped by cShim). Skipped
// where gcc is missing and in -short runs.
func TestSourcesParseAsC(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil || testing.Short() {
		t.Skip("needs gcc and no -short")
	}
	dir := t.TempDir()
	shim := filepath.Join(dir, "shim.h")
	require.NoError(t, os.WriteFile(shim, []byte(cShim), 0o644))
	for i, b := range hostBuilds() {
		src := source(t, b.file, b.defines)
		path := filepath.Join(dir, fmt.Sprintf("%d.c", i))
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
		args := []string{"-std=c99", "-fsyntax-only", "-Werror", "-Werror=implicit-function-declaration", "-include", shim}
		for _, name := range slices.Sorted(maps.Keys(b.defines)) {
			if v := b.defines[name]; v != "" {
				args = append(args, "-D"+name+"="+v)
			} else {
				args = append(args, "-D"+name)
			}
		}
		out, err := exec.Command(gcc, append(args, "-x", "c", path)...).CombinedOutput()
		require.NoError(t, err, "%s %v:\n%s", b.file, b.defines, out)
	}
}
