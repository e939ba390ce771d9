package device

import (
	"fmt"
	"os"
	"strings"
)

// Choice is what a package's Auto chose: a device, or the CPU engine
// (Device nil), and why. It is not an error: the CPU engine is a choice
// as good as any where no GPU exists.
type Choice struct {
	Device *Device // nil: the CPU engine
	Reason string
}

func (c Choice) String() string {
	if c.Device == nil {
		return "CPU engine: " + c.Reason
	}
	return fmt.Sprintf("device %s: %s", c.Device, c.Reason)
}

// Choose picks the device of the packages' Auto functions: the one
// GPUCRYPTO_DEVICE names, if set (of any type: the user asked), else the
// best GPU or accelerator (Best). A CPU device of OpenCL (PoCL, say) is
// not chosen: the packages' CPU engines, on the same cores, are several
// times faster. With no device chosen, Device is nil and Reason says why
// (only CPU devices, or why no driver found any device).
func Choose() Choice {
	if spec := os.Getenv(EnvDevice); spec != "" {
		d, err := Select(spec)
		if err != nil {
			return Choice{Reason: fmt.Sprintf("%s=%q: %v", EnvDevice, spec, err)}
		}
		return Choice{Device: d, Reason: fmt.Sprintf("chosen by %s=%q", EnvDevice, spec)}
	}
	devs, err := Devices()
	if err != nil {
		return Choice{Reason: "no device: " + err.Error()}
	}
	var accelerators []*Device
	var cpus []string
	for _, d := range devs {
		if d.Type == TypeCPU {
			cpus = append(cpus, d.Name)
			continue
		}
		accelerators = append(accelerators, d)
	}
	if best := Best(accelerators); best != nil {
		return Choice{Device: best, Reason: fmt.Sprintf("the strongest of %d GPUs or accelerators", len(accelerators))}
	}
	return Choice{Reason: fmt.Sprintf("no GPU; the CPU devices found (%s) are slower than the CPU engine on the same cores", strings.Join(cpus, ", "))}
}

// Fallback is the choice of the CPU engine after the chosen device could
// not make an engine (its kernels did not build, say): err says why.
func (c Choice) Fallback(err error) Choice {
	return Choice{Reason: fmt.Sprintf("device %s failed: %v", c.Device, err)}
}
