package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/rsa"
)

type selftestResult struct {
	Test   string `json:"test"`
	Passed bool   `json:"passed"`
	// Skipped: the suite does not run on this device by design (AES on a
	// CPU device, which the aes package refuses); Error says why.
	Skipped bool    `json:"skipped,omitempty"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

// selftests are the known-answer suites, one per package with kernels.
var selftests = []struct {
	name string
	run  func(*device.Device) error
}{
	{"arith add/sub/mul 256-4096", func(d *device.Device) error {
		e, err := arith.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		return e.SelfTest()
	}},
	{"modexp 512-4096", func(d *device.Device) error {
		e, err := arith.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		return e.SelfTestModExp()
	}},
	{"rsa-2048 sign/verify/decrypt", func(d *device.Device) error {
		e, err := rsa.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		return rsa.SelfTest(e)
	}},
	{"aes FIPS-197/SP 800-38A/GCM", func(d *device.Device) error {
		e, err := aes.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		return aes.SelfTest(e)
	}},
	{"x25519/x448 RFC 7748 vectors", func(d *device.Device) error {
		e, err := ecdh.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		var fellBack error            // a self-test must run on the device, not the CPU fallback
		e.OnFallback(func(err error) { fellBack = err })
		if err := ecdh.SelfTest(e); err != nil {
			return err
		}
		return fellBack
	}},
	{"ed25519 RFC 8032 vectors", func(d *device.Device) error {
		e, err := ed25519.NewEngine(d)
		if err != nil {
			return err
		}
		defer e.Close()
		e.SetRoute(batch.RouteDevice) // a self-test tests the device
		var fellBack error            // a self-test must run on the device, not the CPU fallback
		e.OnFallback(func(err error) { fellBack = err })
		if err := ed25519.SelfTest(e); err != nil {
			return err
		}
		return fellBack
	}},
	{"ecdsa P-256 verification", func(d *device.Device) error {
		e, err := ecdsa.NewEngine(d) // checks the device with known answers itself
		if err != nil {
			return err
		}
		defer e.Close()
		var fellBack error
		e.OnFallback(func(err error) { fellBack = err })
		if err := ecdsa.SelfTest(e); err != nil {
			return err
		}
		return fellBack
	}},
}

func cmdSelftest(args []string) error {
	fs := flag.NewFlagSet("selftest", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Parse(args)
	d, err := pickDevice()
	if err != nil {
		return err
	}
	if !*asJSON {
		fmt.Printf("selftest on %s (inline PTX: %v)\n", d, d.CarryChains)
	}
	var results []selftestResult
	failed := 0
	for _, st := range selftests {
		t0 := time.Now()
		err := st.run(d)
		r := selftestResult{Test: st.name, Passed: err == nil, Seconds: time.Since(t0).Seconds()}
		r.Skipped = errors.Is(err, aes.ErrCPUDevice)
		if err != nil {
			r.Error = err.Error()
			if !r.Skipped {
				failed++
			}
		}
		results = append(results, r)
		if !*asJSON {
			status := "PASS"
			switch {
			case r.Skipped:
				status = "SKIPPED: " + err.Error()
			case err != nil:
				status = "FAIL: " + err.Error()
			}
			fmt.Printf("  %-32s %6.2fs  %s\n", st.name, r.Seconds, status)
		}
	}
	if *asJSON {
		printJSON(map[string]any{"device": d.Name, "results": results})
	}
	if failed > 0 {
		return errors.New(fmt.Sprint(failed, " self-test(s) failed"))
	}
	if !*asJSON {
		skipped := 0
		for _, r := range results {
			if r.Skipped {
				skipped++
			}
		}
		if skipped > 0 {
			fmt.Printf("all self-tests passed (%d skipped on this device)\n", skipped)
		} else {
			fmt.Println("all self-tests passed")
		}
	}
	return nil
}
