package cl

import (
	"os"
	"path/filepath"
	"strings"
)

// nvidiaLibDirs are where NVIDIA drivers put libnvidia-opencl.so.1.
var nvidiaLibDirs = []string{
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
}

// ICDHint returns advice when the NVIDIA driver's OpenCL library exists but
// no NVIDIA platform is visible (the ICD file is missing), else "".
func ICDHint() string {
	devs, _ := Devices()
	for _, d := range devs {
		if d.Class == VendorNVIDIA {
			return ""
		}
	}
	dirs := append([]string(nil), nvidiaLibDirs...)
	dirs = append(dirs, filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	for _, dir := range dirs {
		lib := filepath.Join(dir, "libnvidia-opencl.so.1")
		if _, err := os.Stat(lib); err != nil {
			continue
		}
		if _, err := os.Stat("/etc/OpenCL/vendors/nvidia.icd"); err == nil {
			return "The NVIDIA OpenCL driver (" + lib + ") and /etc/OpenCL/vendors/nvidia.icd exist, but no NVIDIA platform loaded: check that the kernel driver is running (nvidia-smi) and the ICD loader finds the library (OCL_ICD_VENDORS, LD_LIBRARY_PATH)."
		}
		return strings.Join([]string{
			"The NVIDIA driver's OpenCL library is installed (" + lib + ") but not registered with the ICD loader.",
			"Register it (as root):  echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd",
		}, "\n")
	}
	return ""
}
