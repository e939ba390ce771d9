package device

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/cl"
)

// openclDriver drives every OpenCL platform's devices through package cl.
type openclDriver struct{}

func (openclDriver) name() string { return "opencl" }

func (openclDriver) devices() ([]driverDevice, error) {
	devs, err := cl.Devices()
	if err != nil {
		if h := cl.ICDHint(); h != "" {
			err = fmt.Errorf("%w\n%s", err, h)
		}
		return nil, err
	}
	out := make([]driverDevice, len(devs))
	for i, d := range devs {
		out[i] = &openclDevice{d: d}
	}
	return out, nil
}

type openclDevice struct {
	d     *cl.Device
	cache smallCache

	infoOnce sync.Once
	facts    Info
}

func (o *openclDevice) setSmallCache(c smallCache) { o.cache = c }

func (o *openclDevice) identity() string {
	d := o.d
	return strings.Join([]string{d.Name, d.Vendor, d.DriverVersion, d.Platform, d.PlatformVersion, d.Version}, "\x00")
}

func (o *openclDevice) info() Info {
	o.infoOnce.Do(func() {
		d := o.d
		i := Info{
			Backend: "opencl", Platform: d.Platform, Name: d.Name, Vendor: d.Vendor,
			DriverVersion: d.DriverVersion, Runtime: d.Version, Compiler: d.CVersion,
			ComputeCapability: d.ComputeCap, ComputeUnits: int(d.ComputeUnits), ClockMHz: int(d.ClockMHz),
			GlobalMem: d.GlobalMem, MaxAlloc: d.MaxAlloc, SharedMem: d.LocalMem, MaxSharedMem: d.LocalMem,
			MaxGroup: d.MaxWorkGroup, FP64: d.FP64,
		}
		switch d.Class {
		case cl.VendorNVIDIA:
			i.Class = VendorNVIDIA
		case cl.VendorAMD:
			i.Class = VendorAMD
		case cl.VendorIntel:
			i.Class = VendorIntel
		case cl.VendorCPU:
			i.Class = VendorCPU
		}
		switch {
		case d.Type&cl.TypeGPU != 0:
			i.Type = TypeGPU
		case d.Type&cl.TypeCPU != 0:
			i.Type = TypeCPU
		case d.Type&cl.TypeAccelerator != 0:
			i.Type = TypeAccelerator
		}
		ptx := o.acceptsPTX()
		i.CarryChains = ptx && os.Getenv(EnvNoPTX) != "1"
		i.Shuffles = i.CarryChains
		// NVIDIA's OpenCL compiler (driver 580) crashed the process on the
		// longest unrolled portable-C limb code (see Info.FragileCompiler)
		i.FragileCompiler = i.Class == VendorNVIDIA && !i.CarryChains
		if i.Class == VendorNVIDIA {
			i.UnrollLimit = nvidiaUnrollLimit
		}
		o.facts = i
	})
	return o.facts
}

// nvidiaUnrollLimit is Info.UnrollLimit of NVIDIA's compilers: 512-bit
// rows (plus the word of the no-final-subtraction form) built, 1024-bit
// ones crashed NVRTC.
const nvidiaUnrollLimit = 17

// acceptsPTX probes once whether the compiler accepts inline PTX, keeping
// the answer in the small cache by device and driver.
func (o *openclDevice) acceptsPTX() bool {
	if o.d.Class != cl.VendorNVIDIA {
		return false
	}
	key := "probe-ptx-" + hashKey(o.identity())
	if o.cache != nil {
		if v, ok := o.cache.loadSmall(key); ok {
			return v == "1"
		}
	}
	ok := o.d.AcceptsInlinePTX()
	if o.cache != nil {
		v := "0"
		if ok {
			v = "1"
		}
		o.cache.storeSmall(key, v)
	}
	return ok
}

// clErr marks the OpenCL statuses that mean a lost device.
func clErr(err error) error {
	if cl.IsDeviceLost(err) {
		return markLost(err)
	}
	return err
}

func (o *openclDevice) compile(src string, options []string) (driverProgram, []byte, error) {
	p, err := o.d.BuildSource(src, strings.Join(options, " "))
	if err != nil {
		return nil, nil, clErr(err)
	}
	bin, err := p.Binary()
	if err != nil {
		bin = nil // a program without a binary is not cached
	}
	return openclProgram{p}, bin, nil
}

func (o *openclDevice) load(bin []byte, options []string) (driverProgram, error) {
	p, err := o.d.BuildBinary(bin, strings.Join(options, " "))
	if err != nil {
		return nil, clErr(err)
	}
	return openclProgram{p}, nil
}

func (o *openclDevice) newBuffer(size int) (driverBuffer, error) {
	b, err := o.d.NewBuffer(size)
	if err != nil {
		return nil, clErr(err)
	}
	return &openclBuffer{b}, nil
}

func (o *openclDevice) defaultQueue() (driverQueue, error) {
	q, err := o.d.Queue()
	if err != nil {
		return nil, clErr(err)
	}
	return openclQueue{q}, nil
}

func (o *openclDevice) newQueue() (driverQueue, error) {
	q, err := o.d.NewQueue()
	if err != nil {
		return nil, clErr(err)
	}
	return openclQueue{q}, nil
}

// hostAlloc: ordinary Go memory (the copies of package cl pin it while
// they run).
func (o *openclDevice) hostAlloc(size int) ([]byte, func() error, error) {
	return make([]byte, size), nil, nil
}

type openclProgram struct{ p *cl.Program }

func (p openclProgram) kernel(name string) (driverKernel, error) {
	k, err := p.p.Kernel(name)
	if err != nil {
		return nil, clErr(err)
	}
	return openclKernel{k}, nil
}

func (p openclProgram) log() string    { return p.p.BuildLog() }
func (p openclProgram) release() error { return p.p.Release() }

type openclKernel struct{ k *cl.Kernel }

func (k openclKernel) info() (KernelInfo, error) {
	group, private, err := k.k.WorkGroupInfo()
	return KernelInfo{MaxGroup: group, PrivateBytes: private}, clErr(err)
}

type openclQueue struct{ q *cl.Queue }

func (q openclQueue) launch(k driverKernel, global, local int, args []kernelArg) (driverEvent, error) {
	list := make([]any, len(args))
	for i, a := range args {
		switch {
		case a.buffer != nil:
			list[i] = a.buffer.(*openclBuffer).b
		case a.local > 0:
			list[i] = cl.Local(a.local)
		case a.width == 4:
			list[i] = binary.LittleEndian.Uint32(a.scalar[:])
		default:
			list[i] = binary.LittleEndian.Uint64(a.scalar[:])
		}
	}
	ev, err := q.q.Launch(k.(openclKernel).k, global, local, list...)
	return event(ev, err)
}

func event(ev *cl.Event, err error) (driverEvent, error) {
	if err != nil {
		return nil, clErr(err)
	}
	return openclEvent{ev}, nil
}

func (q openclQueue) write(b driverBuffer, off int, host []byte) (driverEvent, error) {
	return event(q.q.Write(b.(*openclBuffer).b, off, host, false))
}

func (q openclQueue) read(b driverBuffer, off int, host []byte) (driverEvent, error) {
	return event(q.q.Read(b.(*openclBuffer).b, off, host, false))
}

func (q openclQueue) fill(b driverBuffer, pattern []byte, off, n int) (driverEvent, error) {
	return event(q.q.Fill(b.(*openclBuffer).b, pattern, off, n))
}

func (q openclQueue) waitFor(events []driverEvent) error {
	list := make([]*cl.Event, len(events))
	for i, e := range events {
		list[i] = e.(openclEvent).e
	}
	return clErr(q.q.WaitFor(list...))
}

func (q openclQueue) finish() error  { return clErr(q.q.Finish()) }
func (q openclQueue) release() error { return clErr(q.q.Release()) }

type openclBuffer struct{ b *cl.Buffer }

func (b *openclBuffer) size() int      { return b.b.Size() }
func (b *openclBuffer) release() error { return clErr(b.b.Release()) }

type openclEvent struct{ e *cl.Event }

func (e openclEvent) wait() error { return clErr(e.e.Wait()) }
func (e openclEvent) duration() (time.Duration, error) {
	d, err := e.e.Duration()
	return d, clErr(err)
}
func (e openclEvent) release() error { return clErr(e.e.Release()) }

// Hint returns advice when an NVIDIA GPU seems installed but no driver
// reaches it (its OpenCL library is not registered with the ICD loader,
// common in containers), else "".
func Hint() string {
	devs, _ := Devices()
	for _, d := range devs {
		if d.Class == VendorNVIDIA {
			return ""
		}
	}
	return cl.ICDHint()
}
