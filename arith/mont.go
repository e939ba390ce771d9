package arith

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// Variant is the interleaving of multiplication and reduction inside a
// Montgomery product (Koç et al. 1996; compared on GPUs by Neves and
// Araujo 2011).
type Variant string

const (
	CIOS Variant = "cios" // coarsely integrated operand scanning: two carry-chained rows per word
	FIOS Variant = "fios" // finely integrated operand scanning: one pass, 64-bit products
	FIPS Variant = "fips" // finely integrated product scanning (Comba); up to 1024 bits
	// FP64 is the floating-point Montgomery product (zheng 2014; the bit
	// patterns summed as integers as in Emmart, Zheng and Weems 2018):
	// 51-bit digits in doubles, each digit product split exactly into two
	// halves by two fma and one subtraction, the halves summed as 64-bit
	// integers in CIOS rows (kernels/fp64.h). It needs a device with
	// double precision (device.Info.FP64). One work-item per number exists
	// for the widths of FP64Limbs (generated code, with a dedicated
	// squaring); 2, 4 or 8 work-items per number (Threads) for every width
	// (kernels/modexp_fp64_mt.h), the default on GPUs with fast double
	// precision (FastFP64Mont). Results are the same canonical words.
	FP64 Variant = "fp64"
)

// Variants lists the integer interleavings in a stable order (FP64 is not
// one of them: it has no forms, and its own widths, FP64Limbs).
var Variants = []Variant{CIOS, FIOS, FIPS}

// FP64Limbs are the modulus widths, in 32-bit limbs, of the FP64 variant
// (512, 1024 and 2048 bits).
func FP64Limbs() []int { return kernels.FP64Limbs() }

// MontConfig selects the form of the Montgomery kernels. Zero fields pick
// the defaults by modulus size (the fastest forms on a GPU: DefaultMont).
type MontConfig struct {
	Variant Variant // interleaving; "" by size
	// Form chooses between the masked final subtraction in every product
	// (FinalSub: width n) and the no-final-subtraction form (NoFinalSub:
	// width n+1, values kept below 2N); "" by size. Both are constant time.
	Form Form
	// Sqr: 1 squares with the dedicated squaring (up to 1024 bits), -1
	// with the general product, 0 by size.
	Sqr int
	// Window is the fixed-window width in bits (1..6); 0 picks it by size.
	Window int
	// Rows chooses how the loop over the words of the multiplier is
	// compiled on GPUs: 1 unrolls it fully (every index constant, but a
	// copy of all rows at each call site); 0 or -1 keep it a loop of
	// unrolled rows, the default form. CPU devices always keep it. (FIPS
	// and the dedicated squaring are unrolled by the generator either way.)
	Rows int
	// Threads is the number of work-items per number: 0 by size when
	// Variant, Form and Sqr are by size too (else one), 1 for one (the
	// generated variants), or 2, 4, 8, 16 or 32 for the multi-thread
	// form (kernels/modexp_mt.h: CIOS distributed over the lanes, words
	// exchanged by shuffles on NVIDIA and through local memory elsewhere),
	// which needs Variant "" or CIOS and the FinalSub form. For a modulus
	// width that Threads does not divide (a batch may mix widths), the
	// largest power of two that divides its word count is used. With
	// Variant FP64, 2, 4 or 8 (kernels/modexp_fp64_mt.h, digits padded to
	// a multiple of Threads; fewer where the padding is too much for a
	// narrow width).
	Threads int
}

// LanesWorkGroup is the work-group size of the multi-thread kernels.
const LanesWorkGroup = 128

// modexpWorkGroup is the work-group size of the one-thread modexp kernels.
const modexpWorkGroup = 64

// MaxTableBytes bounds the scratch table of one modexp launch (the powers
// of the bases, WINDOW_SIZE·W words per element); larger batches run in
// chunks.
const MaxTableBytes = 1 << 30

// TableLimit is the most table of powers one modexp launch on dev uses:
// MaxTableBytes, or half the device's largest allocation.
func TableLimit(dev *device.Device) uint64 { return min(uint64(MaxTableBytes), dev.MaxAlloc/2) }

// TableWords is the scratch of one element of the modexp kernel, in
// 32-bit words: its table of powers (WINDOW_SIZE entries of W words), and
// for the FP64 variant the multiplier's slot (Digits 64-bit words) after
// the tables of the whole launch; the FP64 multi-thread form keeps its
// entries as Digits 64-bit digits.
func (m Mont) TableWords() int {
	switch {
	case m.Variant == FP64 && m.Lanes > 1: // entries of 64-bit digits
		return 2 * m.Digits << m.Window
	case m.Variant == FP64:
		return m.W<<m.Window + 2*m.Digits
	}
	return m.W << m.Window
}

// ChunkElems is how many of count elements one modexp launch takes when
// each needs tables scratch tables (TableWords each) and the launch may use
// limit bytes of them: all, or as many as fit, at least one.
func (m Mont) ChunkElems(count, tables int, limit uint64) int {
	per := uint64(tables * 4 * m.TableWords())
	return max(1, min(count, int(limit/per)))
}

// ModExpLaunch is how the modexp kernel of m (KernelFile) runs count
// elements: its global and work-group sizes, and the arguments that follow
// the common ones (the lanes' scratch of the multi-thread form).
func (m Mont) ModExpLaunch(count int) (global, local int, extra []any) {
	if m.Lanes > 1 {
		return count * m.Lanes, LanesWorkGroup, []any{device.Local(4 * LanesWorkGroup)}
	}
	return count, modexpWorkGroup, nil
}

// Form is the reduction form of a Montgomery product.
type Form string

const (
	FinalSub   Form = "fs"  // masked final subtraction, values below N
	NoFinalSub Form = "nfs" // one extra word, values below 2N, no subtraction
)

// DefaultMont gives the integer defaults for an n-limb modulus (GPUs with
// fast double precision run FastFP64Mont instead where a batch fills
// them: ResolveFor), the fastest integer forms on a GPU: the fully
// unrolled product scanning without a dedicated squaring at 512 bits,
// CIOS with the dedicated squaring at 1024 bits (one thread per number,
// ahead of 4 there), and the multi-thread form above: 8 threads per
// number at 1536 and 2048 bits, 16 at 3072 and 4096 bits (where one
// thread spills its registers).
func DefaultMont(n int) MontConfig {
	switch {
	case n <= 16:
		return MontConfig{Variant: FIPS, Form: FinalSub, Sqr: -1}
	case n <= 32:
		return MontConfig{Variant: CIOS, Form: FinalSub, Sqr: 1}
	case n <= 64: // 1536, 2048 bits
		return MontConfig{Variant: CIOS, Form: FinalSub, Threads: 8}
	}
	return MontConfig{Variant: CIOS, Form: FinalSub, Threads: 16}
}

// ModLimbs are the modulus widths, in 32-bit limbs, that the Montgomery
// kernels exist for (512 to 4096 bits).
func ModLimbs() []int { return kernels.MontLimbs() }

// ModClass returns the smallest modulus width (in limbs) that holds bits,
// or an error naming the supported sizes.
func ModClass(bits int) (int, error) {
	for _, n := range ModLimbs() {
		if 32*n >= bits {
			return n, nil
		}
	}
	return 0, fmt.Errorf("arith: a %d-bit modulus is wider than the largest supported (%d bits)", bits, 32*slices.Max(ModLimbs()))
}

// Mont is a resolved MontConfig for one modulus width: the width W of the
// arithmetic and the build options of a program that uses it.
type Mont struct {
	N        int // modulus width in limbs
	W        int // arithmetic width: N, or N+1 without final subtraction
	Variant  Variant
	FinalSub bool
	Sqr      bool
	Window   int
	Unroll   bool // rows unrolled (GPU devices)
	// Digits is the number of digits of the FP64 variant (0 for the
	// integer variants), of DigitBits bits each. FP64 has W = N and
	// FinalSub set: its results are canonical N-word values (inside,
	// values stay below 2m in digits).
	Digits int
	// DigitBits is 51, or 52 for the multi-thread form on devices with the
	// PTX path (ResolveFor; the split rounds toward zero there:
	// kernels/modexp_fp64_mt.h).
	DigitBits int
	// Lanes is the number of work-items per number (1, or the Threads of
	// the multi-thread form).
	Lanes int
}

// Resolve applies the defaults of c for an n-limb modulus.
func (c MontConfig) Resolve(n int) (Mont, error) {
	if !slices.Contains(ModLimbs(), n) {
		return Mont{}, fmt.Errorf("arith: no Montgomery kernels for %d limbs (have %v)", n, ModLimbs())
	}
	if c.Variant == FP64 {
		if c.Threads > 1 {
			return c.resolveFP64Lanes(n)
		}
		return c.resolveFP64(n)
	}
	def := DefaultMont(n)
	if c.bySize() {
		c.Threads = def.Threads
	}
	if c.Threads > 1 {
		return c.resolveMT(n)
	}
	if c.Variant == "" {
		c.Variant = def.Variant
	}
	if c.Form == "" {
		c.Form = def.Form
	}
	if c.Sqr == 0 {
		c.Sqr = def.Sqr
	}
	if c.Form != FinalSub && c.Form != NoFinalSub {
		return Mont{}, fmt.Errorf("arith: unknown Montgomery form %q (have %q, %q)", c.Form, FinalSub, NoFinalSub)
	}
	m := Mont{N: n, W: n + 1, Variant: c.Variant, FinalSub: c.Form == FinalSub, Window: c.Window}
	if m.FinalSub {
		m.W = n
	}
	if !slices.Contains(Variants, m.Variant) {
		return Mont{}, fmt.Errorf("arith: unknown Montgomery variant %q (have %v)", m.Variant, Variants)
	}
	if m.Variant == FIPS && !kernels.MontHasFIPS(m.W) {
		return Mont{}, fmt.Errorf("arith: the FIPS form exists up to %d bits, not %d", 32*maxWidth(kernels.MontHasFIPS), 32*n)
	}
	m.Sqr = c.Sqr > 0 && kernels.MontHasSqr(m.W)
	return c.finish(m)
}

// ResolveFor is Resolve for count numbers of an n-limb modulus that will
// run on dev (count <= 0: a large batch, or unknown).
//
// On CPU devices Threads by size (0) means one work-item per number (the
// multi-thread form exists to spread a number's registers over GPU lanes;
// on a CPU its exchanges are barriers, and PoCL builds it slowly).
//
// On GPUs, when the whole configuration is by size, a batch too small to
// fill the device gets more threads per number than DefaultMont's: each
// exponentiation is then shorter (BatchThreads).
//
// On GPUs with fast double precision (device.Info.FastFP64), a batch that
// fills the device (where BatchThreads gives DefaultMont's threads) gets
// FastFP64Mont instead: the floating-point product with several lanes per
// number. That form takes 52-bit digits on devices with the PTX path
// (device.Info.CarryChains), 51-bit ones elsewhere.
func (c MontConfig) ResolveFor(dev *device.Device, n, count int) (Mont, error) {
	switch {
	case dev == nil || c.Threads != 0:
	case dev.Class == device.VendorCPU:
		c.Threads = 1
	case c.bySize():
		t := max(DefaultMont(n).Threads, 1)
		if count > 0 {
			t = BatchThreads(n, count, int(dev.ComputeUnits))
		}
		if f, ok := FastFP64Mont(n); ok && dev.FastFP64 && t == max(DefaultMont(n).Threads, 1) {
			f.Window, f.Rows = c.Window, c.Rows // not the kernel's choice: the caller's
			c = f
		} else if t > 1 {
			c.Threads = t // DefaultMont's where the batch fills the device
		}
	}
	m, err := c.Resolve(n)
	if err == nil && dev != nil && dev.CarryChains && m.Variant == FP64 && m.Lanes > 1 {
		return c.fp64Lanes(n, m.Lanes, 52) // the split rounds toward zero there
	}
	return m, err
}

// FastFP64Mont is the configuration by size on GPUs with fast double
// precision (device.Info.FastFP64) for an n-limb modulus, where it beats
// DefaultMont (false where it does not): the FP64 variant, one work-item
// per number at 512 bits, 2 lanes at 1024, 4 from 1536 to 3072 and 8 at
// 4096 bits (kernels/modexp_fp64_mt.h), 4-bit windows.
func FastFP64Mont(n int) (MontConfig, bool) {
	switch {
	case n <= 16:
		return MontConfig{Variant: FP64}, true
	case n <= 32:
		return MontConfig{Variant: FP64, Threads: 2}, true
	case n <= 96:
		return MontConfig{Variant: FP64, Threads: 4}, true
	}
	return MontConfig{Variant: FP64, Threads: 8}, true
}

// bySize says whether every setting of c that picks the kernel is by size.
func (c MontConfig) bySize() bool {
	return c.Threads == 0 && c.Variant == "" && c.Form == "" && c.Sqr == 0
}

// FillThreadsPerCU is how many work-items per compute unit a batch must
// bring before more threads per number stop paying: below it the device
// idles, and each exponentiation's chain of dependent products is its
// latency. BenchmarkModExpThreads measures where it lies.
const FillThreadsPerCU = 256

// BatchThreads is the number of threads per number that count numbers of n
// limbs get on a GPU of cus compute units: the most of 4, 8, 16 and 32
// (at least two words per thread, and a divisor of n) that keeps count·t
// within FillThreadsPerCU·cus, and never fewer than DefaultMont's (1 where
// it has one thread).
func BatchThreads(n, count, cus int) int {
	t := max(DefaultMont(n).Threads, 1)
	for _, u := range []int{4, 8, 16, 32} {
		if u > t && 2*u <= n && n%u == 0 && count*u <= FillThreadsPerCU*cus {
			t = u
		}
	}
	return t
}

// resolveMT resolves the multi-thread form for an n-limb modulus.
func (c MontConfig) resolveMT(n int) (Mont, error) {
	t := c.Threads
	if t > 32 || t&(t-1) != 0 {
		return Mont{}, fmt.Errorf("arith: %d threads per number: want a power of two up to 32", t)
	}
	t = min(t, n&-n) // a batch may mix widths: at most what divides this one
	if c.Variant != "" && c.Variant != CIOS {
		return Mont{}, fmt.Errorf("arith: the multi-thread form is CIOS, not %s", c.Variant)
	}
	if c.Form != "" && c.Form != FinalSub {
		return Mont{}, fmt.Errorf("arith: the multi-thread form has no %q form (it subtracts, masked, in every product)", c.Form)
	}
	if c.Sqr > 0 {
		return Mont{}, errors.New("arith: the multi-thread form has no dedicated squaring")
	}
	m, err := c.finish(Mont{N: n, W: n, Variant: CIOS, FinalSub: true, Window: c.Window})
	m.Unroll, m.Lanes = false, t
	return m, err
}

// finish applies the row and window settings of c to m.
func (c MontConfig) finish(m Mont) (Mont, error) {
	m.Lanes = 1
	m.Unroll = c.Rows > 0
	if m.Window == 0 {
		m.Window = 4
		if m.N >= 48 {
			m.Window = 5
		}
	}
	if m.Window < 1 || m.Window > 6 {
		return Mont{}, fmt.Errorf("arith: window width %d outside 1..6", m.Window)
	}
	return m, nil
}

// resolveFP64 resolves the FP64 variant for an n-limb modulus: the
// dedicated squaring where it exists unless c.Sqr < 0; Form may be empty
// or FinalSub (the results are canonical), not NoFinalSub.
func (c MontConfig) resolveFP64(n int) (Mont, error) {
	if !slices.Contains(FP64Limbs(), n) {
		bits := make([]int, 0, len(FP64Limbs()))
		for _, l := range FP64Limbs() {
			bits = append(bits, 32*l)
		}
		return Mont{}, fmt.Errorf("arith: the fp64 variant exists for %v-bit moduli, not %d", bits, 32*n)
	}
	if c.Form != "" && c.Form != FinalSub {
		return Mont{}, fmt.Errorf("arith: the fp64 variant has no %q form (its results are canonical; inside, values stay below 2m in 51-bit digits)", c.Form)
	}
	m := Mont{N: n, W: n, Variant: FP64, FinalSub: true, Window: c.Window, Digits: kernels.FP64Digits(n), DigitBits: 51}
	m.Sqr = c.Sqr >= 0 && kernels.FP64HasSqr(n)
	return c.finish(m)
}

// FP64MaxLanes is the most work-items per number of the FP64 variant's
// multi-thread form (at least two digits per lane).
const FP64MaxLanes = 8

// resolveFP64Lanes resolves the FP64 variant with c.Threads work-items per
// number (kernels/modexp_fp64_mt.h) for an n-limb modulus, with 51-bit
// digits (ResolveFor makes them 52-bit on devices with the PTX path): any
// width of ModLimbs, S = ⌈d/Threads⌉ digits per lane (at least 2) for the
// d digits that hold 4m, so Digits = Threads·S. The kernel derives R'^2
// mod m from 2^(64n) mod m with a product by 2^(4(b·Digits − 32n)), which
// must stay below R'/2: where padding to Threads·S digits breaks that (8
// threads at 512 bits), fewer threads are used (a batch may mix widths).
// No dedicated squaring.
func (c MontConfig) resolveFP64Lanes(n int) (Mont, error) {
	t := c.Threads
	if t > FP64MaxLanes || t&(t-1) != 0 {
		return Mont{}, fmt.Errorf("arith: the fp64 variant with %d threads per number: want a power of two up to %d", t, FP64MaxLanes)
	}
	if c.Form != "" && c.Form != FinalSub {
		return Mont{}, fmt.Errorf("arith: the fp64 variant has no %q form (its results are canonical; inside, values stay below 2m in digits)", c.Form)
	}
	if c.Sqr > 0 {
		return Mont{}, errors.New("arith: the fp64 variant's multi-thread form has no dedicated squaring")
	}
	return c.fp64Lanes(n, t, 51)
}

// fp64Lanes is the FP64 multi-thread form of c for n limbs with t lanes
// (already checked) and digits of bits bits, t lowered where it does not
// fit (fp64LanesFit).
func (c MontConfig) fp64Lanes(n, t, bits int) (Mont, error) {
	for t > 2 && !fp64LanesFit(n, t, bits) {
		t /= 2
	}
	window := c.Window
	if window == 0 {
		window = fp64LanesWindow
	}
	m, err := c.finish(Mont{N: n, W: n, Variant: FP64, FinalSub: true, Window: window,
		Digits: fp64LanesDigits(n, t, bits), DigitBits: bits})
	m.Unroll, m.Lanes = false, t
	return m, err
}

// fp64LanesWindow is the window by size of the FP64 multi-thread form at
// every width: its table entries are 64-bit digits read by a masked scan
// of every entry, which wider windows pay for more than they save in
// products.
const fp64LanesWindow = 4

// fp64LanesDigits is the number of digits of bits bits of the FP64
// multi-thread form with t lanes at n limbs: t·S, S = ⌈d/t⌉ for the least
// d with bits·d ≥ 32n + 2 (R' ≥ 4m), at least 2.
func fp64LanesDigits(n, t, bits int) int {
	d := (32*n + 2 + bits - 1) / bits
	return t * max((d+t-1)/t, 2)
}

// fp64LanesFit reports whether the shift 4(bd − 32n) of R'^2's derivation
// stays below bd − 1 with t lanes at n limbs (d = fp64LanesDigits, b =
// bits).
func fp64LanesFit(n, t, bits int) bool {
	d := fp64LanesDigits(n, t, bits)
	return 4*(bits*d-32*n)+1 < bits*d
}

func maxWidth(has func(int) bool) int {
	best := 0
	for _, n := range ModLimbs() {
		if has(n) {
			best = n
		}
	}
	return best
}

func (m Mont) String() string {
	if m.Variant == FP64 && m.Lanes > 1 {
		return fmt.Sprintf("fp64-%dx%d-w%d-t%d", m.Digits, m.DigitBits, m.Window, m.Lanes)
	}
	if m.Variant == FP64 {
		sq, rows := "", ""
		if m.Sqr {
			sq = "+sqr"
		}
		if m.Unroll {
			rows = "-unrolled"
		}
		return fmt.Sprintf("fp64-%dx51%s-w%d%s", m.Digits, sq, m.Window, rows)
	}
	if m.Lanes > 1 {
		return fmt.Sprintf("%s-fs-w%d-t%d", m.Variant, m.Window, m.Lanes)
	}
	form := "nfs"
	if m.FinalSub {
		form = "fs"
	}
	sq := ""
	if m.Sqr {
		sq = "+sqr"
	}
	rows := ""
	if m.Unroll {
		rows = "-unrolled"
	}
	return fmt.Sprintf("%s-%s%s-w%d%s", m.Variant, form, sq, m.Window, rows)
}

// Buildable reports whether m may be compiled for dev. On a device whose
// compiler is fragile (device.Info.FragileCompiler: NVIDIA's OpenCL
// without inline PTX, which crashed the process on these builds) only the
// one product-scanning build that compiled and passed there (512 bits,
// final subtraction, no dedicated squaring: the 512-bit default) is
// allowed; the other FIPS builds are refused rather than risked.
//
// Rows unrolled (Rows: 1) wider than the device's UnrollLimit crashed
// its compiler: refused likewise. The FP64 variant needs double precision:
// refused on a device without it.
func (m Mont) Buildable(dev *device.Device) error {
	if m.Variant == FP64 && !dev.FP64 {
		return fmt.Errorf("arith: the fp64 Montgomery variant needs a device with double precision; %s has none", dev.Name)
	}
	if m.Variant == FP64 && m.DigitBits == 52 && !dev.CarryChains {
		return fmt.Errorf("arith: %s (52-bit digits) needs the PTX path (fma rounded toward zero), which %s (%s) has not", m, dev.Name, dev.Backend)
	}
	if m.Unroll && dev.UnrollLimit > 0 && m.W > dev.UnrollLimit && dev.Class != device.VendorCPU {
		return fmt.Errorf("arith: %s is not built on %s (%s): its compiler crashed on rows unrolled at %d words (it builds up to %d); use Rows: 0", m, dev.Name, dev.Backend, m.W, dev.UnrollLimit)
	}
	if m.Variant == FIPS && (m.Sqr || !m.FinalSub || m.W != 16) && dev.FragileCompiler {
		return fmt.Errorf("arith: %s is not built on %s (%s): its compiler crashed on it; use the default form or CIOS", m, dev.Name, dev.Backend)
	}
	return nil
}

// Defines are the -D options of a program built on modexp.h; extra widths
// (for a second modulus size in the same program) may be enabled with
// WantWidths.
func (m Mont) Defines() map[string]string {
	b2s := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	if m.Variant == FP64 && m.Lanes > 1 {
		return map[string]string{
			"MONT_W":     fmt.Sprint(m.W),
			"LANES":      fmt.Sprint(m.Lanes),
			"LANES_WG":   fmt.Sprint(LanesWorkGroup),
			"FP64_BITS":  fmt.Sprint(m.DigitBits),
			"FP64_S":     fmt.Sprint(m.Digits / m.Lanes),
			"FP64_SHIFT": fmt.Sprint(4 * (m.DigitBits*m.Digits - 32*m.W)),
			"WINDOW":     fmt.Sprint(m.Window),
		}
	}
	if m.Variant == FP64 {
		// modexp_fp64.h uses modexp.h's table scan, which compiles with an
		// integer product at width W (compiled, never called).
		d := map[string]string{
			"MONT_W":                         fmt.Sprint(m.W),
			fmt.Sprintf("MONT_WANT_%d", m.W): "",
			"MONT_FINAL_SUB":                 "1",
			"MONT_VARIANT":                   string(CIOS),
			"MONT_SQR":                       "0",
			"WINDOW":                         fmt.Sprint(m.Window),
			fmt.Sprintf("FP64_WANT_%d", m.W): "",
			"FP64_SQR":                       b2s(m.Sqr),
		}
		if m.Unroll {
			d["FP64_UNROLL"] = ""
		}
		return d
	}
	if m.Lanes > 1 {
		return map[string]string{
			"MT_N":     fmt.Sprint(m.N),
			"LANES":    fmt.Sprint(m.Lanes),
			"LANES_WG": fmt.Sprint(LanesWorkGroup),
			"WINDOW":   fmt.Sprint(m.Window),
		}
	}
	defs := map[string]string{
		"MONT_W":                         fmt.Sprint(m.W),
		fmt.Sprintf("MONT_WANT_%d", m.W): "",
		"MONT_FINAL_SUB":                 b2s(m.FinalSub),
		"MONT_VARIANT":                   string(m.Variant),
		"MONT_SQR":                       b2s(m.Sqr),
		"WINDOW":                         fmt.Sprint(m.Window),
	}
	if m.Unroll {
		defs[fmt.Sprintf("MONT_UNROLL_%d", m.W)] = ""
	}
	return defs
}

// KernelFile is the modexp kernel file of m: modexp.cl, modexp_fp64.cl
// for the FP64 variant, modexp_mt.cl for the multi-thread form or
// modexp_fp64_mt.cl for the FP64 variant's (same kernel name and
// arguments; the layouts of the scratch table differ: TableWords).
func (m Mont) KernelFile() string {
	if m.Variant == FP64 && m.Lanes > 1 {
		return "modexp_fp64_mt.cl"
	}
	if m.Variant == FP64 {
		return "modexp_fp64.cl"
	}
	if m.Lanes > 1 {
		return "modexp_mt.cl"
	}
	return "modexp.cl"
}

// Source is the program of the kernel file file compiled for m on dev
// (rows never unrolled on CPU devices), with extra -D definitions.
func (m Mont) Source(dev *device.Device, file string, extra map[string]string) (device.Source, error) {
	if dev.Class == device.VendorCPU {
		m.Unroll = false
	}
	if err := m.Buildable(dev); err != nil {
		return device.Source{}, err
	}
	defs := m.Defines()
	maps.Copy(defs, extra)
	return kernels.Program(file, defs), nil
}

// Program builds (or takes from the device, which keeps built programs)
// the kernel file file compiled for m on dev.
func (m Mont) Program(dev *device.Device, file string, extra map[string]string) (*device.Program, error) {
	src, err := m.Source(dev, file, extra)
	if err != nil {
		return nil, err
	}
	p, err := dev.Program(src)
	if err != nil {
		return nil, fmt.Errorf("arith: building %s (%s, %d bits) for %s: %w", file, m, 32*m.N, dev.Name, err)
	}
	return p, nil
}

// Constants are the host-computed Montgomery constants of one modulus at
// arithmetic width W (R = 2^(32W)): N0 = −m^(−1) mod 2^32, One = R mod m
// and R2 = R² mod m.
type Constants struct {
	N0  uint32
	M   []uint32 // W limbs
	One []uint32 // W limbs
	R2  []uint32 // W limbs
}

// Errors for moduli the kernels cannot take.
var (
	ErrEvenModulus = errors.New("arith: modulus is even (Montgomery arithmetic needs an odd modulus)")
	ErrZeroModulus = errors.New("arith: modulus is zero or negative")
)

// NewConstants computes the Montgomery constants of the odd modulus m at
// width w limbs.
func NewConstants(m *big.Int, w int) (*Constants, error) {
	if m == nil || m.Sign() <= 0 {
		return nil, ErrZeroModulus
	}
	if m.Bit(0) == 0 {
		return nil, ErrEvenModulus
	}
	if m.BitLen() > 32*w {
		return nil, fmt.Errorf("arith: a %d-bit modulus does not fit %d limbs", m.BitLen(), w)
	}
	// n0: Newton iteration for m^(−1) mod 2^32 (x = x·(2 − m·x) doubles the
	// correct bits; m·m ≡ 1 mod 8 gives three to start).
	m0 := uint32(m.Bits()[0])
	inv := m0
	for range 5 {
		inv *= 2 - m0*inv
	}
	r := new(big.Int).Lsh(big.NewInt(1), uint(32*w))
	r2 := new(big.Int).Mul(r, r)
	c := &Constants{N0: -inv, M: make([]uint32, w), One: make([]uint32, w), R2: make([]uint32, w)}
	for _, x := range []struct {
		dst []uint32
		v   *big.Int
	}{{c.M, m}, {c.One, r.Mod(r, m)}, {c.R2, r2.Mod(r2, m)}} {
		if err := PutLimbs(x.dst, x.v); err != nil {
			return nil, err
		}
	}
	return c, nil
}
