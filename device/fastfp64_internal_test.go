package device

import "testing"

// FastFP64 is set for the data-centre GPUs only, by compute capability on
// NVIDIA and by gfx target on AMD, and never without double precision.
func TestFastFP64(t *testing.T) {
	for _, c := range []struct {
		info Info
		want bool
	}{
		{Info{Class: VendorNVIDIA, Type: TypeGPU, FP64: true, ComputeCapability: "9.0"}, true},
		{Info{Class: VendorNVIDIA, Type: TypeGPU, FP64: true, ComputeCapability: "8.0"}, true},
		{Info{Class: VendorNVIDIA, Type: TypeGPU, FP64: true, ComputeCapability: "8.9"}, false},
		{Info{Class: VendorNVIDIA, Type: TypeGPU, FP64: true, ComputeCapability: "12.0"}, false},
		{Info{Class: VendorNVIDIA, Type: TypeGPU, FP64: false, ComputeCapability: "9.0"}, false},
		{Info{Class: VendorAMD, Type: TypeGPU, FP64: true, Name: "gfx90a:sramecc+:xnack-"}, true},
		{Info{Class: VendorAMD, Type: TypeGPU, FP64: true, Name: "gfx1100"}, false},
		{Info{Class: VendorCPU, Type: TypeCPU, FP64: true}, false},
		{Info{Class: VendorIntel, Type: TypeGPU, FP64: true}, false},
	} {
		if got := fastFP64(c.info); got != c.want {
			t.Errorf("fastFP64(%+v) = %v, want %v", c.info, got, c.want)
		}
	}
}
