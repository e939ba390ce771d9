package cuda_test

import (
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/cuda"
)

// NVRTC compiles CUDA C into PTX (and a CUBIN for a real architecture)
// with no GPU and no driver: what gpucrypto kernelinfo
// --compute-capability does to fill a kernel cache ahead.
func ExampleNVRTC_Compile() {
	nvrtc, err := cuda.LoadNVRTC()
	if err != nil {
		log.Fatal(err) // cuda.ErrNoNVRTC: see GPUCRYPTO_NVRTC_DIR
	}
	major, minor := nvrtc.Version()
	out, err := nvrtc.Compile(`extern "C" __global__ void twice(unsigned *x) { x[threadIdx.x] *= 2; }`,
		"twice.cu", []string{"--gpu-architecture=sm_90"})
	if err != nil {
		log.Fatal(err) // a *cuda.NVRTCError carries the compiler's log
	}
	fmt.Printf("NVRTC %d.%d: %d bytes of PTX, %d of CUBIN\n", major, minor, len(out.PTX), len(out.CUBIN))
}

// The CUDA driver and its devices.
func ExampleLoadDriver() {
	driver, err := cuda.LoadDriver()
	if err != nil {
		log.Fatal(err) // cuda.ErrNoDriver where libcuda is absent
	}
	n, err := driver.DeviceCount()
	if err != nil {
		log.Fatal(err)
	}
	major, minor := driver.Version()
	fmt.Printf("CUDA driver %d.%d, %d devices\n", major, minor, n)
}
