package main

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// The deployed shape of `gpucrypto bench tls` (--deployed): the TLS server
// in a process of its own (this binary again, as `bench tls-server`),
// pinned to --server-cpus with GOMAXPROCS to match, accepting full
// handshakes over loopback TCP; the clients in this process, pinned to
// --client-cpus. The rate is the server's handshakes per second over its
// own window; each side's CPU use and its CPUs' busy share say which one
// is the limit, and the kernel's listen-queue drops whether loopback TCP
// was.

// deployedResult is one line of `bench tls --deployed`.
type deployedResult struct {
	Version     string  `json:"version"`
	Key         string  `json:"key"` // cpu, gpu (RSA), ed25519
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"handshakes_per_s"` // completed by the server in the window
	P50Ms       float64 `json:"p50_ms"`           // one handshake as a client sees it (connect included)
	P99Ms       float64 `json:"p99_ms"`
	// ServerCPUMs is the server process's CPU time per handshake;
	// ServerUse and ClientUse are each process's CPU time in the window
	// over the window times its cores (1: every core busy).
	ServerCPUMs float64 `json:"server_cpu_ms_per_handshake"`
	ServerUse   float64 `json:"server_cpu_use"`
	ClientUse   float64 `json:"client_cpu_use"`
	// ClientsLimit says the clients' cores were nearly all busy (90% or
	// more): the server may do more than the rate says.
	ClientsLimit bool `json:"clients_are_the_limit"`
	// TCP is what the kernel counted in the window (Linux): connection
	// attempts dropped at the listen queue, and SYNs sent again. Any
	// drop means loopback TCP, not the CPUs, bounded the rate.
	TCP *tcpCounters `json:"tcp,omitempty"`
	// ServerCPUsBusy and ClientCPUsBusy are the shares of each side's
	// CPUs' time that were not idle (Linux), whatever ran there: a
	// process's use below its CPUs' busy share is time taken by the
	// kernel's network work or by others.
	ServerCPUsBusy float64 `json:"server_cpus_busy"`
	ClientCPUsBusy float64 `json:"client_cpus_busy"`
	// Backlog is the server's listen queue length (somaxconn on Linux).
	Backlog int `json:"listen_backlog,omitempty"`
	// OnCPU (gpu rows) is the share of the window's signatures the
	// rsa.Server computed on its CPU path.
	OnCPU *float64 `json:"on_cpu_fraction,omitempty"`
}

// deployedSetup is what `bench tls --deployed` runs: the server's and the
// clients' CPUs, and the arguments every server process gets.
type deployedSetup struct {
	serverCPUs, clientCPUs []int
	serverArgs             []string // --bits, --curves, device and batch flags
	profile                string   // --cpuprofile: the gpu server's profile
}

// runDeployed measures every key, version and concurrency in the deployed
// shape, one server process per key and version, and gives emit each row
// as soon as it is measured.
func runDeployed(setup deployedSetup, keys, versions []string, concurrency []int, curves []tls.CurveID, warm, dur time.Duration, emit func(deployedResult) error) error {
	if err := pinProcess(setup.clientCPUs); err != nil {
		return err
	}
	runtime.GOMAXPROCS(len(setup.clientCPUs))
	for _, k := range keys {
		for _, v := range versions {
			args := append([]string{"bench", "tls-server", "--key", k, "--version", v, "--cpus", cpuList(setup.serverCPUs)}, setup.serverArgs...)
			if k == "gpu" && setup.profile != "" {
				args = append(args, "--cpuprofile", fmt.Sprintf("%s.tls%s", setup.profile, v))
			}
			if err := deployedRun(args, k, v, concurrency, curves, setup, warm, dur, emit); err != nil {
				return fmt.Errorf("bench tls --deployed, %s key, TLS %s: %w", k, v, err)
			}
		}
	}
	return nil
}

// serverMark is what the server process reports at each mark: its
// counters so far.
type serverMark struct {
	Addr       string `json:"addr,omitempty"`
	Cert       []byte `json:"cert,omitempty"`    // DER (first line only)
	Backlog    int    `json:"backlog,omitempty"` // the listen queue's length (first line only)
	Elapsed    int64  `json:"elapsed_ns"`        // since the server started, on its monotonic clock
	CPU        int64  `json:"cpu_ns"`
	Handshakes int64  `json:"handshakes"`
	Signatures int64  `json:"signatures_on_cpu_path"` // gpu key: the rsa.Server's CPU path
	Failed     int64  `json:"failed"`
}

// deployedRun starts one server process (args), measures it at each
// concurrency and gives emit each row.
func deployedRun(args []string, key, v string, concurrency []int, curves []tls.CurveID, setup deployedSetup, warm, dur time.Duration, emit func(deployedResult) error) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", len(setup.serverCPUs)))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		in.Close() // the server exits when its input ends
		cmd.Wait()
	}()
	out := bufio.NewScanner(outPipe)
	read := func() (serverMark, error) {
		var m serverMark
		if !out.Scan() {
			return m, fmt.Errorf("the server process ended: %v", out.Err())
		}
		return m, json.Unmarshal(out.Bytes(), &m)
	}
	first, err := read()
	if err != nil {
		return err
	}
	leaf, err := x509.ParseCertificate(first.Cert)
	if err != nil {
		return fmt.Errorf("the server's certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	cli := clientConfig(v, pool, curves, key == "ed25519")

	for _, n := range concurrency {
		var marks [2]serverMark
		var clientCPU [2]time.Duration
		var clientAt [2]time.Time
		var tcp [2]tcpCounters
		var cpus [2]cpuSample
		tcpOK := true
		var markErr error
		w, err := runLoad(n, warm, dur, func(ctx context.Context) error {
			return tcpHandshake(ctx, first.Addr, cli)
		}, func(start bool) {
			i := 1
			if start {
				i = 0
			}
			clientCPU[i], _ = cputime.Process()
			clientAt[i] = time.Now()
			var ok bool
			tcp[i], ok = readTCPCounters()
			tcpOK = tcpOK && ok
			cpus[i] = readCPUTimes()
			if _, err := io.WriteString(in, "mark\n"); err != nil {
				markErr = err
				return
			}
			if marks[i], err = read(); err != nil {
				markErr = err
			}
		})
		if err != nil {
			return err
		}
		if markErr != nil {
			return markErr
		}
		if failed := marks[1].Failed - marks[0].Failed; failed > 0 {
			return fmt.Errorf("%d handshakes failed on the server in the window", failed)
		}
		// The window is the server's own, between its two marks: a mark
		// that reaches a busy server late must not count the handshakes
		// and CPU time of a longer window over the nominal one.
		done := marks[1].Handshakes - marks[0].Handshakes
		window := time.Duration(marks[1].Elapsed - marks[0].Elapsed)
		if window <= 0 {
			return fmt.Errorf("the server's window between marks is %v", window)
		}
		r := deployedResult{Version: v, Key: key, Concurrency: n, Rate: float64(done) / window.Seconds(),
			P50Ms: w.percentileMs(0.50), P99Ms: w.percentileMs(0.99), Backlog: first.Backlog}
		serverCPU := time.Duration(marks[1].CPU - marks[0].CPU)
		if done > 0 {
			r.ServerCPUMs = float64(serverCPU) / 1e6 / float64(done)
		}
		r.ServerUse = serverCPU.Seconds() / window.Seconds() / float64(len(setup.serverCPUs))
		r.ClientUse = (clientCPU[1] - clientCPU[0]).Seconds() / clientAt[1].Sub(clientAt[0]).Seconds() / float64(len(setup.clientCPUs))
		r.ServerCPUsBusy = busyShare(cpus[0], cpus[1], setup.serverCPUs)
		r.ClientCPUsBusy = busyShare(cpus[0], cpus[1], setup.clientCPUs)
		if tcpOK {
			d := tcp[1].sub(tcp[0])
			r.TCP = &d
		}
		r.ClientsLimit = r.ClientUse >= 0.9
		if key == "gpu" {
			onCPU := min(1, float64(marks[1].Signatures-marks[0].Signatures)/float64(max(done, 1)))
			r.OnCPU = &onCPU
		}
		fmt.Fprintf(os.Stderr, "deployed TLS %s, %s key, %d concurrent: %.0f handshakes/s, server %.3f ms CPU/handshake, CPU use server %.0f%% clients %.0f%%, their CPUs busy %.0f%% and %.0f%%, listen queue %d (%s)\n",
			v, key, n, r.Rate, r.ServerCPUMs, 100*r.ServerUse, 100*r.ClientUse, 100*r.ServerCPUsBusy, 100*r.ClientCPUsBusy, first.Backlog, r.TCP.String())
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// tcpHandshake connects to addr, runs a full client handshake with cli,
// and waits for the server to close the connection (the server closes
// first: the connection's TIME_WAIT is the server's, so the clients do
// not run out of ports).
func tcpHandshake(ctx context.Context, addr string, cli *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if err := tls.Client(c, cli).HandshakeContext(ctx); err != nil {
		return err
	}
	var buf [64]byte
	for {
		if _, err := c.Read(buf[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var op *net.OpError
			if errors.As(err, &op) && !op.Timeout() {
				return nil // reset by the server's close: the handshake was done
			}
			return err
		}
	}
}

// clientConfig is the clients' configuration for version v: full
// handshakes (no session cache), the server's certificate trusted through
// pool; TLS 1.2 with ECDHE and AES-128-GCM (ECDSA suites for an Ed25519
// certificate, RSA ones else).
func clientConfig(v string, pool *x509.CertPool, curves []tls.CurveID, ed bool) *tls.Config {
	ver := tlsVersions[v]
	cli := &tls.Config{RootCAs: pool, ServerName: tlsServerName, MinVersion: ver, MaxVersion: ver, CurvePreferences: curves}
	if ver == tls.VersionTLS12 {
		cli.CipherSuites = tls12Suites(ed)
	}
	return cli
}

// tls12Suites are the TLS 1.2 suites of the bench: ECDHE with AES-128-GCM,
// signed by the certificate's key (ECDSA suites carry Ed25519).
func tls12Suites(ed bool) []uint16 {
	if ed {
		return []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	}
	return []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
}

// tls-server is not listed: the process bench tls --deployed starts.
var _ = benchCommands.add(benchCommand{name: "tls-server", run: cmdBenchTLSServer})

// cmdBenchTLSServer is the server process of `bench tls --deployed`: it
// pins itself to --cpus, listens on loopback, prints its address and
// certificate as a JSON line, answers each "mark" line on its input with
// its counters, and exits when its input ends.
func cmdBenchTLSServer(args []string) error {
	fs := flag.NewFlagSet("bench tls-server", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	keyFlag := fs.String("key", "cpu", "cpu, gpu or ed25519")
	version := fs.String("version", "1.3", "1.3 or 1.2")
	bits := fs.Int("bits", 2048, "RSA key size")
	curvesFlag := fs.String("curves", "x25519mlkem768,x25519", "key exchange groups")
	cpusFlag := fs.String("cpus", "", "CPUs to run on (empty: any)")
	batchOptions := batchFlags(fs, "gpu: ")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process to this file")
	parseFlags(fs, args)
	if *cpusFlag != "" {
		cpus, err := parseCPUList(*cpusFlag)
		if err != nil {
			return err
		}
		if err := pinProcess(cpus); err != nil {
			return err
		}
		runtime.GOMAXPROCS(len(cpus))
	}
	if _, ok := tlsVersions[*version]; !ok {
		return fmt.Errorf("bench tls-server: unknown version %q", *version)
	}
	curves, err := parseCurves(*curvesFlag)
	if err != nil {
		return err
	}
	var priv crypto.Signer
	var signatures func() int64 = func() int64 { return 0 }
	switch *keyFlag {
	case "cpu", "gpu":
		key, err := benchKey(*bits)
		if err != nil {
			return err
		}
		priv = key
		if *keyFlag == "gpu" {
			d, err := pickDevice()
			if err != nil {
				return err
			}
			e, err := rsa.NewEngine(d)
			if err != nil {
				return err
			}
			if err := e.Warm(*bits); err != nil {
				return err
			}
			s, err := rsa.NewServer(batchOptions(), e)
			if err != nil {
				return err
			}
			defer s.Close()
			if priv, err = s.Signer(key); err != nil {
				return err
			}
			signatures = func() int64 { return s.Stats().CPUOps }
		}
	case "ed25519":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		priv = k
	default:
		return fmt.Errorf("bench tls-server: unknown key %q (have cpu, gpu, ed25519)", *keyFlag)
	}
	cert, err := benchCertificate(priv)
	if err != nil {
		return err
	}
	srv, _ := tlsConfigs(*version, cert, priv, curves)
	srv.CipherSuites = nil
	if tlsVersions[*version] == tls.VersionTLS12 {
		srv.CipherSuites = tls12Suites(*keyFlag == "ed25519")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var handshakes, failed atomic.Int64
	start := time.Now()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.SetDeadline(time.Now().Add(tlsHandshakeTimeout))
				if err := tls.Server(c, srv).Handshake(); err != nil {
					failed.Add(1)
				} else {
					handshakes.Add(1)
				}
				c.Close() // first: the TIME_WAIT is the server's (tcpHandshake)
			}()
		}
	}()
	enc := json.NewEncoder(os.Stdout)
	mark := func(first bool) error {
		cpu, _ := cputime.Process()
		m := serverMark{Elapsed: int64(time.Since(start)), CPU: int64(cpu), Handshakes: handshakes.Load(), Signatures: signatures(), Failed: failed.Load()}
		if first {
			m.Addr, m.Cert, m.Backlog = ln.Addr().String(), cert.der, listenBacklog()
		}
		return enc.Encode(m)
	}
	if err := mark(true); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if strings.TrimSpace(in.Text()) == "mark" {
			if err := mark(false); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseCPUList parses a CPU list as taskset takes it: "0-7,12,14-15".
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: want numbers and ranges such as 0-7,12", s)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// cpuList writes cpus as parseCPUList reads them.
func cpuList(cpus []int) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// batchArgs are the batch flags of o, as a server process takes them.
func batchArgs(o batch.Options) []string {
	var args []string
	if o.MaxBatch != 0 {
		args = append(args, "--max-batch", strconv.Itoa(o.MaxBatch))
	}
	if o.MaxDelay != 0 {
		args = append(args, "--max-delay", o.MaxDelay.String())
	}
	if o.Pipeline != 0 {
		args = append(args, "--pipeline", strconv.Itoa(o.Pipeline))
	}
	if o.CPUOffload != 0 {
		args = append(args, "--offload", strconv.Itoa(o.CPUOffload))
	}
	if o.AnswerPiece != 0 {
		args = append(args, "--answer-piece", strconv.Itoa(o.AnswerPiece))
	}
	if o.AnswerAlongside {
		args = append(args, "--answer-alongside")
	}
	return args
}

// deployedCPUs resolves --server-cpus and --client-cpus (defaults: the
// first and the second half of the CPUs).
func deployedCPUs(serverSpec, clientSpec string) (deployedSetup, error) {
	n := runtime.NumCPU()
	var s deployedSetup
	var err error
	if serverSpec == "" {
		serverSpec = fmt.Sprintf("0-%d", max(n/2, 1)-1)
	}
	if clientSpec == "" {
		clientSpec = fmt.Sprintf("%d-%d", min(n/2, n-1), n-1)
	}
	if s.serverCPUs, err = parseCPUList(serverSpec); err != nil {
		return s, fmt.Errorf("--server-cpus: %w", err)
	}
	if s.clientCPUs, err = parseCPUList(clientSpec); err != nil {
		return s, fmt.Errorf("--client-cpus: %w", err)
	}
	return s, nil
}

// deployedReport is the JSON of bench tls --deployed.
type deployedReport struct {
	runInfo
	Bits       int               `json:"bits"`
	ServerCPUs string            `json:"server_cpus"`
	ClientCPUs string            `json:"client_cpus"`
	Groups     map[string]string `json:"key_exchange"`
	Results    []deployedResult  `json:"results,omitempty"` // absent from the first line of --json-out (the run)
}

// benchDeployed runs bench tls --deployed and reports it: each row printed
// (and written to --json-out) as soon as it is measured, with the gpu
// row's rate over the ed25519 row's of the same version and concurrency
// where that was measured before.
func benchDeployed(setup deployedSetup, report *jsonReport, keys, versions []string, concurrency []int, curves []tls.CurveID, groups map[string]string, bits int, warm, dur time.Duration) error {
	rep := deployedReport{runInfo: newRunInfo(nil, "", ""), Bits: bits, ServerCPUs: cpuList(setup.serverCPUs), ClientCPUs: cpuList(setup.clientCPUs), Groups: groups}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	var table *rowTable
	if !report.toStdout() {
		fmt.Printf("commit: %s  %s\nCPU: %s  RSA-%d  server on CPUs %s, clients on CPUs %s, loopback TCP, no resumption\n\n",
			commit(), runtime.Version(), cpuModel(), bits, cpuList(setup.serverCPUs), cpuList(setup.clientCPUs))
		table = newRowTable(os.Stdout, column{"TLS", 3}, column{"key", 7}, column{"concurrency", 0}, column{"handshakes/s", 0},
			column{"p50 ms", 8}, column{"p99 ms", 8}, column{"server CPU ms/handshake", 0}, column{"server CPU use (CPUs busy)", 0},
			column{"client CPU use (CPUs busy)", 0}, column{"listen drops", 0}, column{"signed on CPU path", 0}, column{"of ed25519", 0})
	}
	drops := false
	err := runDeployed(setup, keys, versions, concurrency, curves, warm, dur, func(r deployedResult) error {
		if r.TCP != nil && (r.TCP.ListenDrops > 0 || r.TCP.ListenOverflows > 0) {
			drops = true
		}
		if table != nil {
			table.deployedRow(r, rep.Results)
		}
		rep.Results = append(rep.Results, r)
		return report.result(r)
	})
	if err != nil {
		return err
	}
	if drops && table != nil {
		fmt.Printf("\nThe kernel dropped connection attempts at the listen queue (length %d) in some windows: each waits for a\n"+
			"SYN retransmission (a second at first), so those rows are bounded by loopback TCP, not by the server's CPUs.\n", rep.Results[0].Backlog)
	}
	return report.finish(rep)
}

// deployedRow prints r as a row of bench tls --deployed's table; before
// are the rows measured before it.
func (t *rowTable) deployedRow(r deployedResult, before []deployedResult) {
	onCPU, ofEd := "-", "-"
	if r.OnCPU != nil {
		onCPU = fmt.Sprintf("%.1f%%", 100**r.OnCPU)
	}
	for _, c := range before {
		if c.Key == "ed25519" && c.Version == r.Version && c.Concurrency == r.Concurrency && c.Rate > 0 {
			ofEd = fmt.Sprintf("%.0f%%", 100*r.Rate/c.Rate)
		}
	}
	limit := ""
	if r.ClientsLimit {
		limit = " (clients the limit)"
	}
	drops := "-"
	if r.TCP != nil {
		drops = strconv.FormatInt(r.TCP.ListenDrops, 10)
	}
	t.row(r.Version, r.Key, strconv.Itoa(r.Concurrency), human(r.Rate), fmt.Sprintf("%.2f", r.P50Ms), fmt.Sprintf("%.2f", r.P99Ms),
		fmt.Sprintf("%.3f", r.ServerCPUMs), useOf(r.ServerUse, r.ServerCPUsBusy), useOf(r.ClientUse, r.ClientCPUsBusy)+limit, drops, onCPU, ofEd)
}

// useOf writes a process's CPU use beside its CPUs' busy share.
func useOf(use, busy float64) string {
	if busy < 0 {
		return fmt.Sprintf("%.0f%%", 100*use)
	}
	return fmt.Sprintf("%.0f%% (%.0f%%)", 100*use, 100*busy)
}
