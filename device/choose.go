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

// Choose picks the device of the packages' Auto functions, which Default
// and NewEngine(nil) compute on too: the one GPUCRYPTO_DEVICE names, if
// set (of any type: the user asked), else the best GPU or accelerator
// (Best). A CPU device of OpenCL (PoCL, say) is not chosen: the packages'
// CPU engines, on the same cores, are faster. With no device chosen,
// Device is nil and Reason says why (only CPU devices, or why no driver
// found any device).
func Choose() Choice {
	c, _ := choose()
	return c
}

// choose is Choose's choice and, where that is the CPU engine, the error
// of Default.
func choose() (Choice, error) {
	if spec := os.Getenv(EnvDevice); spec != "" {
		d, err := selectEnv(spec)
		if err != nil {
			return Choice{Reason: err.Error()}, err
		}
		return Choice{Device: d, Reason: fmt.Sprintf("chosen by %s=%q", EnvDevice, spec)}, nil
	}
	devs, err := Devices()
	if err != nil {
		return Choice{Reason: "no device: " + err.Error()}, err
	}
	return chooseAmong(devs)
}

// chooseAmong is choose's choice of the devices found, GPUCRYPTO_DEVICE
// unset: the best GPU or accelerator, else the CPU engine, with an error
// matching ErrNoDevice that gives the reason and what to do instead.
func chooseAmong(devs []*Device) (Choice, error) {
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
		return Choice{Device: best, Reason: fmt.Sprintf("the strongest of %d GPUs or accelerators", len(accelerators))}, nil
	}
	reason := fmt.Sprintf("no GPU; the CPU devices found (%s) are slower than the CPU engine on the same cores", strings.Join(cpus, ", "))
	return Choice{Reason: reason}, &noDevice{fmt.Errorf("device: no default device: %s; use the package's CPUEngine or Auto, or name a device with %s", reason, EnvDevice)}
}

// Fallback is the choice of the CPU engine after the chosen device could
// not make an engine (its kernels did not build, say): err says why.
func (c Choice) Fallback(err error) Choice {
	return Choice{Reason: fmt.Sprintf("device %s failed: %v", c.Device, err)}
}
