package arith_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// edgeValues are the values most likely to break a carry chain.
func edgeValues(bits int) []*big.Int {
	one := big.NewInt(1)
	pow := func(k int) *big.Int { return new(big.Int).Lsh(one, uint(k)) }
	allOnes := new(big.Int).Sub(pow(bits), one)
	top := pow(bits - 1)
	var msb big.Int // every limb 0x80000000
	for j := 0; j < bits/32; j++ {
		msb.SetBit(&msb, 32*j+31, 1)
	}
	var low big.Int // every limb 0x00000001
	for j := 0; j < bits/32; j++ {
		low.SetBit(&low, 32*j, 1)
	}
	return []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(0xffffffff), pow(32),
		allOnes, new(big.Int).Sub(allOnes, one), top, new(big.Int).Add(top, one),
		&msb, &low, new(big.Int).Rsh(allOnes, 32), new(big.Int).Lsh(new(big.Int).Rsh(allOnes, 32), 32),
	}
}

// operands gives count pairs: first every pair of edge values, then random
// values (some with long runs of all-ones limbs).
func operands(bits, count int) (a, b []*big.Int) {
	edge := edgeValues(bits)
	max := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	for i := 0; i < count; i++ {
		if i < len(edge)*len(edge) {
			a = append(a, edge[i/len(edge)])
			b = append(b, edge[i%len(edge)])
			continue
		}
		x, _ := rand.Int(rand.Reader, max)
		y, _ := rand.Int(rand.Reader, max)
		if i%5 == 0 { // x + y crosses many all-ones limbs
			y = new(big.Int).Sub(max, x)
			y.Add(y, big.NewInt(int64(i%3)))
			y.Mod(y, max)
		}
		a, b = append(a, x), append(b, y)
	}
	return a, b
}

func TestOpsAgainstMathBig(t *testing.T) {
	d := devicetest.Device(t)
	e, err := arith.NewEngine(d)
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	for _, bits := range arith.Widths() {
		for _, count := range []int{1, 7, 1000, 65536} {
			if count == 65536 && bits > 1024 && devicetest.Short(d) {
				count = 4096 // PoCL on 2 CI cores; GPUCRYPTO_FULL=1 runs all
			}
			t.Run(fmt.Sprintf("%d/%d", bits, count), func(t *testing.T) {
				a, b := operands(bits, count)
				checkAddSubMul(t, e, bits, a, b)
			})
		}
	}
}

// checkAddSubMul checks e's Add, Sub and Mul of a and b at width bits
// against math/big.
func checkAddSubMul(t *testing.T, e *arith.Engine, bits int, a, b []*big.Int) {
	t.Helper()
	mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	sum, carry, err := e.Add(bits, a, b)
	require.NoError(t, err)
	diff, borrow, err := e.Sub(bits, a, b)
	require.NoError(t, err)
	prod, err := e.Mul(bits, a, b)
	require.NoError(t, err)
	var want big.Int
	for i := range a {
		want.Add(a[i], b[i])
		wc := uint32(0)
		if want.Cmp(mod) >= 0 {
			wc = 1
			want.Sub(&want, mod)
		}
		if want.Cmp(sum[i]) != 0 || carry[i] != wc {
			t.Fatalf("add %d: %x + %x = %x carry %d; want %x carry %d", i, a[i], b[i], sum[i], carry[i], &want, wc)
		}
		want.Sub(a[i], b[i])
		wb := uint32(0)
		if want.Sign() < 0 {
			wb = 1
			want.Add(&want, mod)
		}
		if want.Cmp(diff[i]) != 0 || borrow[i] != wb {
			t.Fatalf("sub %d: %x - %x = %x borrow %d; want %x borrow %d", i, a[i], b[i], diff[i], borrow[i], &want, wb)
		}
		want.Mul(a[i], b[i])
		if want.Cmp(prod[i]) != 0 {
			t.Fatalf("mul %d: %x * %x = %x; want %x", i, a[i], b[i], prod[i], &want)
		}
	}
}

func TestPerElementErrors(t *testing.T) {
	e, err := arith.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	big256 := new(big.Int).Lsh(big.NewInt(1), 256)
	a := []*big.Int{big.NewInt(5), nil, big.NewInt(-3), big256, big.NewInt(7)}
	b := []*big.Int{big.NewInt(6), big.NewInt(1), big.NewInt(1), big.NewInt(1), big256}
	sum, carry, err := e.Add(256, a, b)
	var be *batch.Error
	require.True(t, errors.As(err, &be), "got %v", err)
	require.Len(t, be.Errs, 5)
	require.Equal(t, 4, be.Failed())
	require.NoError(t, be.Errs[0])
	require.ErrorContains(t, be.Errs[1], "nil")
	require.ErrorContains(t, be.Errs[2], "negative")
	require.ErrorContains(t, be.Errs[3], "left operand")
	require.ErrorContains(t, be.Errs[4], "right operand")
	require.Zero(t, sum[0].Cmp(big.NewInt(11)), "valid elements still computed")
	require.Equal(t, uint32(0), carry[0])
	for i := 1; i < 5; i++ {
		require.Nil(t, sum[i])
	}

	_, _, err = e.Add(256, a[:2], b[:1])
	require.ErrorContains(t, err, "1 right operands")
	_, err = e.Mul(300, a, b)
	require.ErrorContains(t, err, "unsupported width 300")
	out, _, err := e.Sub(512, nil, nil)
	require.NoError(t, err)
	require.Empty(t, out)
	_, err = e.Run(arith.OpAdd, arith.NewBatch(8, 2), arith.NewBatch(16, 2))
	require.ErrorContains(t, err, "differ in shape")
	_, err = e.Run("div", arith.NewBatch(8, 2), arith.NewBatch(8, 2))
	require.ErrorContains(t, err, "unknown operation")
}

// The CPU engine and a device engine routed to the CPU compute what the
// kernels do: Add, Sub, Mul and ModExp against math/big, and Stats count
// the CPU path.
func TestCPUPath(t *testing.T) {
	d := devicetest.Device(t)
	dev, err := arith.NewEngine(d)
	require.NoError(t, err)
	defer dev.Close()
	dev.SetRoute(batch.RouteCPU)
	for name, e := range map[string]*arith.Engine{"cpu engine": arith.CPUEngine(), "routed to the cpu": dev} {
		t.Run(name, func(t *testing.T) {
			const bits, count = 256, 300
			a, b := operands(bits, count)
			checkAddSubMul(t, e, bits, a, b)
			m := randOdd(1000)
			bases, exps, mods := make([]*big.Int, 20), make([]*big.Int, 20), make([]*big.Int, 20)
			for i := range bases {
				bases[i], _ = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 1024)) // may exceed m
				exps[i], _ = rand.Int(rand.Reader, m)
				mods[i] = m
				if i%2 == 1 {
					mods[i] = randOdd(300)
				}
			}
			out, err := e.ModExp(bases, exps, mods)
			require.NoError(t, err)
			for i := range out {
				require.Zero(t, new(big.Int).Exp(bases[i], exps[i], mods[i]).Cmp(out[i]), "modexp %d", i)
			}
			s := e.Stats()
			require.Zero(t, s.DeviceOps)
			require.EqualValues(t, 3*count+20, s.CPUOps)
		})
	}
}

// Auto never returns a CPU-type OpenCL device (PoCL): the CPU engine
// beats it; the choice says so.
func TestAuto(t *testing.T) {
	e, choice := arith.Auto()
	defer e.Close()
	require.NotEmpty(t, choice.Reason)
	require.Equal(t, choice.Device, e.Device())
	if d := e.Device(); d != nil && os.Getenv("GPUCRYPTO_DEVICE") == "" {
		require.NotEqual(t, device.TypeCPU, d.Type, "Auto chose a CPU device: %v", choice)
	}
}
