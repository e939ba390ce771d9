package main

import (
	stdaes "crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// aesResult is one line of `gpucrypto bench aes`. Rates are in bits per
// second of message data (Gbps); GB/s is Gbps/8.
type aesResult struct {
	Op        string  `json:"op"`    // ctr, gcm-seal, gcm-open, ecb
	Shape     string  `json:"shape"` // resident, bulk, batch
	KeyBits   int     `json:"key_bits"`
	Bytes     int     `json:"message_bytes"` // per message
	Batch     int     `json:"batch"`         // messages per call (distinct keys)
	Calls     int     `json:"calls"`
	KernelBps float64 `json:"gpu_kernel_bits_per_s"`
	E2EBps    float64 `json:"gpu_end_to_end_bits_per_s"`
	// batch shape: Pipeline calls at once from as many goroutines (each
	// with its own messages), all their data over the wall time.
	PipeBps  float64 `json:"gpu_pipelined_bits_per_s,omitempty"`
	Pipeline int     `json:"pipeline,omitempty"`
	CPUBps   float64 `json:"cpu_bits_per_s,omitempty"` // Go crypto/aes on all cores, same run
	// AutoBps is the end-to-end rate with the engine choosing device or
	// CPU per call (batch.RouteAuto, the default); AutoPath where its
	// calls ran (see benchResult.AutoPath).
	AutoBps  float64 `json:"auto_end_to_end_bits_per_s,omitempty"`
	AutoPath string  `json:"auto_path,omitempty"`
	// CPUCallBps is the rate of the same calls on the CPU (batch.RouteCPU:
	// the CPU engine's code, crypto/aes and crypto/cipher on all cores).
	CPUCallBps float64 `json:"cpu_engine_call_bits_per_s,omitempty"`
}

type aesReport struct {
	runInfo
	Layout  string `json:"layout"`
	Group   int    `json:"work_group"`
	Segment int    `json:"gcm_segment"`
	// Refused is why the aes package made no engine on the device (a CPU
	// device): the device figures are then not measured, the CPU engine's
	// and Go's are.
	Refused string      `json:"device_refused,omitempty"`
	Results []aesResult `json:"results,omitempty"` // absent from the first line of --json-out (the run)
}

var _ = benchCommands.add(benchCommand{
	name: "aes", algorithm: "aes",
	what: "AES CTR/GCM/XTS/CBC/ECB: device-resident, bulk and batched calls",
	ops:  func() []string { return aesModes },
	run:  cmdBenchAES,
})

// aesModes are the operations (--ops) of bench aes.
var aesModes = []string{"ctr", "gcm", "xts", "cbc", "ecb"}

// aesShapes are the call shapes of bench aes (--shapes).
var aesShapes = []string{"resident", "bulk", "batch", "manavski"}

func cmdBenchAES(args []string) error {
	fs := flag.NewFlagSet("bench aes", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	shapes := fs.String("shapes", "resident,bulk,batch", "call shapes: resident (device buffers), bulk (one host message), batch (many messages, distinct keys), manavski (Manavski 2007 ECB baseline, not constant-time; with --ops ecb)")
	pipeline := fs.Int("pipeline", 4, "batch shape: calls in flight at once from as many goroutines, for the pipelined figure (1: none)")
	ops := fs.String("ops", "ctr,gcm,xts,cbc", "modes: ctr, gcm, xts (4 KB sectors, bulk), cbc (decryption, bulk), ecb")
	keys := fs.String("keys", "128,256", "key sizes in bits: 128, 192, 256")
	resident := fs.Int("resident-mb", 1024, "device-resident data per call, MB")
	bulk := fs.String("bulk-mb", "1,16,256,1024", "bulk message sizes, MB")
	sizes := fs.String("batch-bytes", "64,1500,16384", "message sizes of the batches, bytes")
	batchMB := fs.Int("batch-mb", 64, "data per batch call, MB")
	layout := fs.String("layout", "auto", "table layout: auto, compact, wide")
	group := fs.Int("group", 0, "work-group size (0: the engine's default)")
	segment := fs.Int("segment", 0, "GCM blocks per work-item (0: default)")
	noCPU := fs.Bool("no-cpu", false, "skip the CPU figures")
	defines := fs.String("define", "", "extra kernel definitions, NAME=VALUE,... (tuning: GHASH_WAYS)")
	stageMB := fs.Int("stage-mb", 0, "host-memory pipeline: MB of staging per stage (0: default)")
	stages := fs.Int("stages", 0, "host-memory pipeline: stages (0: default)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	startTracing := traceFlag(fs)
	fill := fs.String("fill", "0x5a", "input of the device-resident shapes: a byte (0x5a, 0) or random")
	seconds := fs.Float64("seconds", 1, "time per measurement, above 0")
	fs.BoolVar(&noAuto, "no-auto", false, "skip the auto figure (the engine choosing device or CPU per call)")
	report := jsonFlags(fs)
	applyCrashOutput := crashOutputFlag(fs)
	fs.Usage = benchUsage(fs, "aes")
	parseFlags(fs, args)
	if err := applyCrashOutput(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench aes: unexpected arguments %q", fs.Args())
	}
	// every flag is checked before the device is touched
	opList := strings.Split(*ops, ",")
	if err := checkBenchOps("aes", opList); err != nil {
		return err
	}
	cfg, shapeList, err := aesBenchConfig(*shapes, *layout, *defines, *fill, *group, *segment, *stageMB, *stages, *pipeline, *resident, *batchMB)
	if err != nil {
		return fmt.Errorf("bench aes: %w", err)
	}
	keyBits, err := flagWords("keys", *keys, []string{"128", "192", "256"})
	if err != nil {
		return fmt.Errorf("bench aes: %w", err)
	}
	bulkMB, err := positiveInts("bulk-mb", *bulk)
	if err != nil {
		return fmt.Errorf("bench aes: %w", err)
	}
	batchBytes, err := positiveInts("batch-bytes", *sizes)
	if err != nil {
		return fmt.Errorf("bench aes: %w", err)
	}
	dur, err := positiveSeconds("seconds", *seconds)
	if err != nil {
		return fmt.Errorf("bench aes: %w", err)
	}

	d, err := pickDevice()
	if err != nil {
		return err
	}
	inputFill = *fill
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	stopTrace, err := startTracing()
	if err != nil {
		return err
	}
	defer stopTrace()
	e, err := aes.NewEngineConfig(d, cfg)
	refused := ""
	switch {
	case errors.Is(err, aes.ErrCPUDevice):
		// no device figures; the CPU engine's and Go's all the same
		refused = err.Error()
		fmt.Fprintf(os.Stderr, "bench aes: %v\nbench aes: no device figures on %s; the CPU engine (aes.CPUEngine) and Go on all cores are measured\n", err, d.Name)
		e = aes.CPUEngine()
	case err != nil:
		return err
	default:
		e.SetRoute(batch.RouteDevice) // the device figures; autoAES measures the route's choice apart
	}
	defer e.Close()
	rep := aesReport{runInfo: newRunInfo(d, "", ""), Layout: e.Layout().String(), Group: e.WorkGroup(), Segment: e.Segment(), Refused: refused}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	// each row is printed (and written to --json-out) as soon as it is
	// measured
	var table *rowTable
	if !report.toStdout() {
		fmt.Printf("device: %s (%s), layout %s, work-group %d, GCM segment %d\ncommit: %s  %s  CPU: %s, %d threads\n\n",
			rep.Device, rep.Backend, rep.Layout, rep.Group, rep.Segment, rep.Commit, rep.GoVersion, rep.CPU, rep.CPUCores)
		if rep.Refused != "" {
			fmt.Printf("device figures: none (%s)\n\n", rep.Refused)
		}
		table = newAESTable()
	}
	emit := func(r aesResult) error {
		progressDone()
		rep.Results = append(rep.Results, r)
		if table != nil {
			table.aesRow(r)
		}
		return report.result(r)
	}
	step, steps := 0, len(shapeList)*len(opList)*len(keyBits)
	for _, shape := range shapeList {
		for _, op := range opList {
			for _, k := range keyBits {
				bits, _ := strconv.Atoi(k)
				step++
				progress(step, steps, fmt.Sprintf("%s %s-%d", shape, op, bits))
				var rs []aesResult
				switch shape {
				case "resident":
					if refused == "" {
						rs, err = benchAESResident(e, d, op, bits, *resident<<20, dur)
					}
				case "bulk":
					err = benchAESBulk(e, op, bits, bulkMB, dur, !*noCPU, emit)
				case "batch":
					err = benchAESBatch(e, op, bits, batchBytes, *batchMB<<20, *pipeline, dur, !*noCPU, emit)
				case "manavski": // Manavski 2007 (internal/aesvariant): ECB on device buffers, NOT constant-time
					if op == "ecb" {
						rs, err = benchAESManavski(d, bits, *resident<<20, dur)
					}
				}
				for _, r := range rs {
					if err == nil {
						err = emit(r)
					}
				}
				progressDone()
				if err != nil {
					return fmt.Errorf("bench aes %s %s %d: %w", shape, op, bits, err)
				}
			}
		}
	}
	return report.finish(rep)
}

// aesBenchConfig checks the flags of bench aes that configure the engine
// and the shapes, and returns the engine's configuration and the shapes.
func aesBenchConfig(shapes, layout, defines, fill string, group, segment, stageMB, stages, pipeline, residentMB, batchMB int) (aes.Config, []string, error) {
	cfg := aes.Config{WorkGroup: group, Segment: segment, StageBytes: stageMB << 20, Stages: stages}
	shapeList, err := flagWords("shapes", shapes, aesShapes)
	if err != nil {
		return cfg, nil, err
	}
	switch layout {
	case "auto":
	case "compact":
		cfg.Layout = aes.LayoutCompact
	case "wide":
		cfg.Layout = aes.LayoutWide
	default:
		return cfg, nil, fmt.Errorf("--layout %q: want auto, compact or wide", layout)
	}
	if defines != "" {
		cfg.Defines = map[string]string{}
		for _, kv := range strings.Split(defines, ",") {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				return cfg, nil, fmt.Errorf("--define %q: %q is not NAME=VALUE", defines, kv)
			}
			cfg.Defines[name] = value
		}
	}
	if fill != "random" {
		if _, err := strconv.ParseUint(fill, 0, 8); err != nil {
			return cfg, nil, fmt.Errorf("--fill %q: want a byte (0x5a, 0) or random", fill)
		}
	}
	for _, c := range []struct {
		name         string
		value, least int
	}{{"group", group, 0}, {"segment", segment, 0}, {"stage-mb", stageMB, 0}, {"stages", stages, 0},
		{"pipeline", pipeline, 1}, {"resident-mb", residentMB, 1}, {"batch-mb", batchMB, 1}} {
		if err := atLeast(c.name, c.value, c.least); err != nil {
			return cfg, nil, err
		}
	}
	return cfg, shapeList, nil
}

// newAESTable prints the titles of bench aes's table and returns it.
func newAESTable() *rowTable {
	return newRowTable(os.Stdout,
		column{"shape", 11}, column{"op", 14}, column{"key", 3}, column{"message bytes", 0}, column{"batch", 0},
		column{"kernel Gbps", 0}, column{"end-to-end Gbps", 0}, column{"end-to-end GB/s", 0}, column{"pipelined GB/s", 0},
		column{"CPU engine GB/s (same call)", 0}, column{"auto GB/s (path)", 20}, column{"CPU GB/s (all cores)", 0})
}

// aesRow prints r as a row of bench aes's table.
func (t *rowTable) aesRow(r aesResult) {
	cpu, pipe, auto, cpuCall := "-", "-", "-", "-"
	if r.CPUBps > 0 {
		cpu = fmt.Sprintf("%.1f", r.CPUBps/8e9)
	}
	if r.Pipeline > 0 {
		pipe = fmt.Sprintf("%.1f (P=%d)", r.PipeBps/8e9, r.Pipeline)
	}
	if r.AutoBps > 0 {
		auto = fmt.Sprintf("%.1f (%s)", r.AutoBps/8e9, r.AutoPath)
		cpuCall = fmt.Sprintf("%.1f", r.CPUCallBps/8e9)
	}
	t.row(r.Shape, r.Op, strconv.Itoa(r.KeyBits), strconv.Itoa(r.Bytes), strconv.Itoa(r.Batch),
		fmt.Sprintf("%.1f", r.KernelBps/1e9), fmt.Sprintf("%.1f", r.E2EBps/1e9), fmt.Sprintf("%.1f", r.E2EBps/8e9), pipe, cpuCall, auto, cpu)
}

// inputFill is --fill: what the device-resident inputs hold. Under ncu,
// "random" against a constant byte shows whether shared-memory bank
// conflicts depend on the data (they must not for the library's layouts).
var inputFill = "0x5a"

// fillInput writes n bytes of input into b as --fill asks.
func fillInput(b *device.Buffer, n int) error {
	if inputFill == "random" {
		const piece = 64 << 20
		buf := make([]byte, min(n, piece))
		for off := 0; off < n; off += piece {
			m := min(piece, n-off)
			rand.Read(buf[:m])
			if err := b.Write(off, buf[:m]); err != nil {
				return err
			}
		}
		return nil
	}
	v, err := strconv.ParseUint(inputFill, 0, 8)
	if err != nil {
		return fmt.Errorf("--fill %q: want a byte or random", inputFill)
	}
	return b.Fill([]byte{byte(v)}, 0, n)
}

func randomKey(bits int) (*aes.Key, []byte, error) {
	raw := make([]byte, bits/8)
	rand.Read(raw)
	k, err := aes.NewKey(raw)
	return k, raw, err
}

// timed runs call until dur has passed (at least twice: the first is a
// warm-up, not counted) and returns the calls counted, their wall time and
// the engine's device time over them.
func timed(e *aes.Engine, dur time.Duration, call func() error) (int, time.Duration, time.Duration, error) {
	if err := call(); err != nil {
		return 0, 0, 0, err
	}
	k0 := e.Stats().DeviceTime
	start := time.Now()
	n := 0
	for n == 0 || time.Since(start) < dur {
		if err := call(); err != nil {
			return 0, 0, 0, err
		}
		n++
	}
	return n, time.Since(start), e.Stats().DeviceTime - k0, nil
}

// measureAES measures call (bytes of data each) into r: on a device
// engine the device's rates (routed there), then the CPU's and the auto
// route's (autoAES); on the CPU engine (no engine on a CPU device) the
// CPU engine's rate alone.
func measureAES(r *aesResult, e *aes.Engine, bytes int, dur time.Duration, call func() error) error {
	n, wall, kern, err := timed(e, dur, call)
	if err != nil {
		return err
	}
	r.Calls = n
	if e.Device() == nil {
		r.CPUCallBps = rate(bytes, n, wall)
		return nil
	}
	r.KernelBps, r.E2EBps = rate(bytes, n, kern), rate(bytes, n, wall)
	return autoAES(r, e, bytes, dur, call)
}

// autoAES adds to r the rates of call (bytes of data each) on the CPU and
// with the engine choosing device or CPU per call, and where those calls
// ran (routeRates).
func autoAES(r *aesResult, e *aes.Engine, bytes int, dur time.Duration, call func() error) error {
	bps := func() (float64, error) {
		n, wall, _, err := timed(e, dur, call)
		return rate(bytes, n, wall), err
	}
	var err error
	r.CPUCallBps, r.AutoBps, r.AutoPath, err = routeRates(e, call, bps)
	return err
}

func rate(bytes, calls int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) * 8 * float64(calls) / d.Seconds()
}

func benchAESResident(e *aes.Engine, d *device.Device, op string, bits, size int, dur time.Duration) ([]aesResult, error) {
	k, _, err := randomKey(bits)
	if err != nil {
		return nil, err
	}
	in, out, release, err := residentBuffers(d, size)
	if err != nil {
		return nil, err
	}
	defer release()
	iv, nonce := make([]byte, 16), make([]byte, 12)
	var name string
	var call func() error
	switch op {
	case "ctr":
		name, call = "ctr", func() error { return e.XORKeyStreamDevice(k, iv, out, in, size) }
	case "ecb":
		name, call = "ecb", func() error { return e.EncryptBlocksDevice(k, out, in, size) }
	case "gcm":
		name, call = "gcm-seal", func() error { _, err := e.SealDevice(k, nonce, nil, out, in, size); return err }
	case "xts", "cbc":
		return nil, nil // no device-resident form
	default:
		return nil, fmt.Errorf("unknown op %q", op)
	}
	n, wall, kern, err := timed(e, dur, call)
	if err != nil {
		return nil, err
	}
	return []aesResult{{Op: name, Shape: "resident", KeyBits: bits, Bytes: size, Batch: 1, Calls: n,
		KernelBps: rate(size, n, kern), E2EBps: rate(size, n, wall)}}, nil
}

// residentBuffers are the input (filled as --fill says) and output device
// buffers of size bytes of a device-resident measurement.
func residentBuffers(d *device.Device, size int) (in, out *device.Buffer, release func(), err error) {
	if in, err = d.NewBuffer(size); err != nil {
		return nil, nil, nil, err
	}
	if out, err = d.NewBuffer(size); err != nil {
		in.Release()
		return nil, nil, nil, err
	}
	release = func() { in.Release(); out.Release() }
	if err = fillInput(in, size); err != nil {
		release()
		return nil, nil, nil, err
	}
	return in, out, release, nil
}

// benchAESBulk measures one long message in host memory: in ordinary Go
// memory (shape bulk: the engine stages it through pinned buffers) and in
// pinned memory from Device.HostAlloc (shape bulk-pinned: copied
// directly). The CPU figure is Go's crypto/aes on all cores over the same
// amount of data in 1 MB pieces.
func benchAESBulk(e *aes.Engine, op string, bits int, sizesMB []int, dur time.Duration, withCPU bool, emit func(aesResult) error) error {
	k, raw, err := randomKey(bits)
	if err != nil {
		return err
	}
	std, _ := stdaes.NewCipher(raw)
	xtsRaw := make([]byte, bits/4)
	rand.Read(xtsRaw)
	xk, err := aes.NewXTSKey(xtsRaw)
	if err != nil {
		return err
	}
	for _, mb := range sizesMB {
		size := mb << 20
		for _, shape := range []string{"bulk", "bulk-pinned"} {
			var buf []byte // size bytes, room for a tag after them
			if shape == "bulk" {
				buf = make([]byte, size+aes.TagSize)[:size]
			} else {
				if e.Device() == nil {
					continue // no device engine (a CPU device): nothing to pin for
				}
				h, err := e.Device().HostAlloc(size + aes.TagSize)
				if err != nil {
					return err
				}
				defer h.Free()
				buf = h.Bytes[:size]
				if !device.Pinned(buf) {
					continue // no pinned memory on this backend
				}
			}
			iv, nonce := make([]byte, 16), make([]byte, 12)
			var call func() error
			name := op
			switch op {
			case "ctr":
				call = func() error { return e.XORKeyStream(k, iv, buf, buf) }
			case "ecb":
				call = func() error { return e.EncryptBlocks(k, buf, buf) }
			case "gcm":
				name = "gcm-seal"
				// in place: the ciphertext and tag over the plaintext
				msgs := []aes.Message{{Key: k, Nonce: nonce, Data: buf, Out: buf[:0]}}
				call = func() error { _, err := e.Seal(msgs); return err }
			case "xts":
				name = "xts-4k-sectors"
				call = func() error { return e.EncryptSectors(xk, buf, buf, xtsSector, 0) }
			case "cbc":
				name = "cbc-decrypt"
				msgs := []aes.CBCMessage{{Key: k, IV: iv, Data: buf}}
				call = func() error { _, err := e.DecryptCBC(msgs); return err }
			default:
				return fmt.Errorf("unknown op %q", op)
			}
			r := aesResult{Op: name, Shape: shape, KeyBits: bits, Bytes: size, Batch: 1}
			if err := measureAES(&r, e, size, dur, call); err != nil {
				return err
			}
			if withCPU {
				piece := min(size, 1<<20)
				r.CPUBps = float64(piece) * 8 * allCores(dur, cpuAES(op, std, xtsRaw, piece))
			}
			if err := emit(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// xtsSector is the data unit of the XTS figures (a 4 KB disk sector).
const xtsSector = 4096

// cpuAES is one message of size bytes with Go's crypto/aes (the key
// expanded beforehand), for allCores: each core its own buffers.
func cpuAES(op string, block cipher.Block, xtsKey []byte, size int) func(i int) {
	bufs := make([][]byte, runtime.NumCPU())
	for i := range bufs {
		bufs[i] = make([]byte, size+16)
	}
	aead, _ := cipher.NewGCM(block)
	xc, _ := xts.NewCipher(stdaes.NewCipher, xtsKey)
	iv, nonce := make([]byte, 16), make([]byte, 12)
	return func(i int) {
		b := bufs[i%len(bufs)]
		switch op {
		case "gcm":
			aead.Seal(b[:0], nonce, b[:size], nil)
		case "xts":
			for j := 0; j+xtsSector <= size; j += xtsSector {
				xc.Encrypt(b[j:j+xtsSector], b[j:j+xtsSector], uint64(j/xtsSector))
			}
		case "cbc":
			cipher.NewCBCDecrypter(block, iv).CryptBlocks(b[:size&^15], b[:size&^15])
		case "ecb":
			for j := 0; j+16 <= size; j += 16 {
				block.Encrypt(b[j:], b[j:])
			}
		default:
			cipher.NewCTR(block, iv).XORKeyStream(b[:size], b[:size])
		}
	}
}

func benchAESBatch(e *aes.Engine, op string, bits int, sizes []int, perCall, pipeline int, dur time.Duration, withCPU bool, emit func(aesResult) error) error {
	if op != "gcm" {
		return nil // batches are GCM's (the AEAD of records and packets)
	}
	for _, size := range sizes {
		count := max(1, perCall/size)
		msgs := make([]aes.Message, count)
		blocks := make([]cipher.Block, count)
		for i := range msgs {
			k, raw, err := randomKey(bits)
			if err != nil {
				return err
			}
			blocks[i], _ = stdaes.NewCipher(raw)
			// outputs reused from call to call, as a server's buffers are
			msgs[i] = aes.Message{Key: k, Nonce: make([]byte, 12), AAD: make([]byte, 13), Data: make([]byte, size),
				Out: make([]byte, 0, size+aes.TagSize)}
		}
		seal := func() error { _, err := e.Seal(msgs); return err }
		r := aesResult{Op: "gcm-seal", Shape: "batch", KeyBits: bits, Bytes: size, Batch: count}
		if err := measureAES(&r, e, size*count, dur, seal); err != nil {
			return err
		}
		if pipeline > 1 && e.Device() != nil {
			sets := make([][]aes.Message, pipeline)
			for p := range sets {
				sets[p] = make([]aes.Message, count)
				for i := range sets[p] {
					m := msgs[i]
					m.Data = make([]byte, size)
					m.Out = make([]byte, 0, size+aes.TagSize)
					sets[p][i] = m
				}
			}
			var calls atomic.Int64
			var firstErr atomic.Value
			var wg sync.WaitGroup
			start := time.Now()
			for p := range sets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Since(start) < dur {
						if _, err := e.Seal(sets[p]); err != nil {
							firstErr.Store(err)
							return
						}
						calls.Add(1)
					}
				}()
			}
			wg.Wait()
			if err, _ := firstErr.Load().(error); err != nil {
				return err
			}
			r.PipeBps = rate(size*count, int(calls.Load()), time.Since(start))
			r.Pipeline = pipeline
		}
		if withCPU {
			aeads := make([]cipher.AEAD, count)
			for i := range aeads {
				aeads[i], _ = cipher.NewGCM(blocks[i])
			}
			bufs := make([][]byte, runtime.NumCPU())
			for i := range bufs {
				bufs[i] = make([]byte, size+16)
			}
			nonce, aad := make([]byte, 12), make([]byte, 13)
			r.CPUBps = float64(size) * 8 * allCores(dur, func(i int) {
				b := bufs[i%len(bufs)]
				aeads[i%count].Seal(b[:0], nonce, b[:size], aad)
			})
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}
