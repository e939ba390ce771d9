package main

import (
	"bytes"
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// marked is the indexes of the rows of `gpucrypto devices` marked as the
// default device ("0*").
func marked(out string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasSuffix(f[0], "*") {
			if _, err := strconv.Atoi(strings.TrimSuffix(f[0], "*")); err == nil {
				rows = append(rows, f[0])
			}
		}
	}
	return rows
}

// `gpucrypto devices` marks the device Auto computes on (device.Choose's):
// on a machine with only CPU devices (PoCL in CI) none, and a line says
// why; GPUCRYPTO_DEVICE naming a CPU device marks that one.
func TestDevicesMarksAutosChoice(t *testing.T) {
	devicetest.Device(t) // skips, or fails, where there is no device
	t.Setenv(device.EnvDevice, "")
	var stdout, stderr bytes.Buffer
	if err := devices(nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	t.Logf("\n%s", out)
	choice := device.Choose()
	switch rows := marked(out); {
	case choice.Device == nil && len(rows) > 0:
		t.Errorf("rows %q marked default; Auto computes on the CPU engine (%s)", rows, choice.Reason)
	case choice.Device == nil && !strings.Contains(out, "no default device: "+choice.Reason):
		t.Errorf("no line says why no device is the default (%s)", choice.Reason)
	case choice.Device != nil && (len(rows) != 1 || rows[0] != strconv.Itoa(choice.Device.Index)+"*"):
		t.Errorf("rows %q marked default; want #%d, Auto's", rows, choice.Device.Index)
	}

	devs, _ := device.Devices()
	for _, d := range devs {
		if d.Type != device.TypeCPU {
			continue
		}
		t.Setenv(device.EnvDevice, strconv.Itoa(d.Index))
		stdout.Reset()
		if err := devices(nil, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if rows := marked(stdout.String()); len(rows) != 1 || rows[0] != strconv.Itoa(d.Index)+"*" {
			t.Errorf("GPUCRYPTO_DEVICE=%d: rows %q marked default", d.Index, rows)
		}
	}
}

// A command that takes --device, given none, runs on Auto's device, else
// (only CPU devices) on the best CPU device all the same, and says which
// and why on the flags' output.
func TestDeviceFlagsDefault(t *testing.T) {
	devicetest.Device(t) // skips, or fails, where there is no device
	t.Setenv(device.EnvDevice, "")
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var out bytes.Buffer
	fs.SetOutput(&out)
	pick := deviceFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	d, err := pick()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	choice := device.Choose()
	if choice.Device != nil {
		if d != choice.Device || !strings.Contains(out.String(), "the device Auto computes on, "+choice.Reason) {
			t.Errorf("device %s, said %q; want Auto's %s", d, out.String(), choice.Device)
		}
		return
	}
	want, err := device.Any()
	if err != nil {
		t.Fatal(err)
	}
	if d != want || d.Type != device.TypeCPU || !strings.Contains(out.String(), "device: "+d.String()+": a CPU device") || !strings.Contains(out.String(), choice.Reason) {
		t.Errorf("device %s, said %q; want the CPU device %s and why", d, out.String(), want)
	}
}
