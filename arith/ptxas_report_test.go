//go:build cuda

package arith_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// EnvPtxasReport names the variable that turns on TestPtxasReport.
const EnvPtxasReport = "GPUCRYPTO_PTXAS_REPORT"

// TestPtxasReport logs what NVRTC's ptxas says of each modexp form's
// kernel for sm_90 (registers, stack frame, spill stores and loads), as
// resolved for an H100, with no GPU: a quick check of register pressure
// before spending device time. It runs only when GPUCRYPTO_PTXAS_REPORT=1
// (and NVRTC is found), e.g.
//
//	GPUCRYPTO_PTXAS_REPORT=1 go test -tags cuda -run PtxasReport -v ./arith
//
// The figures come from the NVRTC found here (Debian's is 11.8); NVRTC 13
// allocates a few registers differently.
func TestPtxasReport(t *testing.T) {
	if os.Getenv(EnvPtxasReport) != "1" {
		t.Skipf("set %s=1 to print the ptxas report", EnvPtxasReport)
	}
	t.Setenv(device.EnvNoCache, "1") // a cached program has no build log
	d := devicetest.CUDACompiler(t)
	report := regexp.MustCompile(`(?m)^ptxas\s+(info|\.)\s+:?\s*(Used \d+ registers.*|\d+ bytes stack frame.*)$`)
	for _, n := range arith.ModLimbs() {
		for _, c := range []arith.MontConfig{{}, arith.DefaultMont(n), {Variant: arith.FP64, Threads: 2}, {Variant: arith.FP64, Threads: 4}, {Variant: arith.FP64, Threads: 8}} {
			m, err := c.ResolveFor(d, n, 0)
			require.NoError(t, err)
			src, err := m.Source(d, m.KernelFile(), nil)
			require.NoError(t, err)
			src.Flags = append(src.Flags, "--ptxas-options=-v") // the device layer's own build, and -v
			p, err := d.Build(src)
			require.NoError(t, err, "%d bits, %s", 32*n, m)
			log := p.BuildLog()
			log = log[strings.Index(log, "'modexp'"):]
			var lines []string
			for _, l := range report.FindAllStringSubmatch(log, 2) {
				lines = append(lines, l[2])
			}
			t.Logf("%4d bits %-22s %s", 32*n, m, strings.Join(lines, "; "))
		}
	}
}
