package cl

import (
	"os"
	"path/filepath"
	"strings"
)

// EnvVendors is the ICD loader's variable for the directory of its .icd
// files (ocl-icd and the Khronos loader read it).
const EnvVendors = "OCL_ICD_VENDORS"

// defaultVendorsDir is where the ICD loader looks without EnvVendors.
const defaultVendorsDir = "/etc/OpenCL/vendors"

// vendorsDir is the directory the ICD loader searches for .icd files:
// EnvVendors where set, else /etc/OpenCL/vendors; and, for messages, how
// it was chosen.
func vendorsDir() (dir, why string) {
	if v := os.Getenv(EnvVendors); v != "" {
		return v, " (" + EnvVendors + ")"
	}
	return defaultVendorsDir, ""
}

// noPlatformReason says why no OpenCL platform was found: no ICD in the
// directory the loader searched.
func noPlatformReason() string {
	dir, why := vendorsDir()
	return "no OpenCL platform is registered (no ICD in " + dir + why + ")"
}

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
		dir, why := vendorsDir()
		icd := filepath.Join(dir, "nvidia.icd")
		if _, err := os.Stat(icd); err == nil {
			return "The NVIDIA OpenCL driver (" + lib + ") and " + icd + why + " exist, but no NVIDIA platform loaded: check that the kernel driver is running (nvidia-smi) and the ICD loader finds the library (OCL_ICD_VENDORS, LD_LIBRARY_PATH)."
		}
		return strings.Join([]string{
			"The NVIDIA driver's OpenCL library is installed (" + lib + ") but not registered with the ICD loader" + why + ".",
			"Register it (as root):  echo libnvidia-opencl.so.1 > " + icd,
		}, "\n")
	}
	return ""
}
