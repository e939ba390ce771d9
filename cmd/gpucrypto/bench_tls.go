package main

import (
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// tlsResult is one line of `gpucrypto bench tls`: concurrency goroutines
// each doing one full handshake at a time, for a while.
type tlsResult struct {
	Version     string  `json:"version"`     // "1.3" or "1.2"
	Key         string  `json:"key"`         // cpu: the *rsa.PrivateKey; gpu: an rsa.Server Signer
	Concurrency int     `json:"concurrency"` // handshakes in flight
	Rate        float64 `json:"handshakes_per_s"`
	Handshakes  int     `json:"handshakes"` // completed in the measured window
	P50Ms       float64 `json:"p50_ms"`     // latency of one handshake, both sides
	P99Ms       float64 `json:"p99_ms"`
	// CPUMs is the process's CPU time (user and system, all threads:
	// servers, clients, batcher, driver) in the window per handshake.
	CPUMs float64 `json:"cpu_ms_per_handshake"`
	// gpu rows: the RSA kernels' time in the window (rsa.Server.Stats),
	// and the fraction of the window's signatures that the rsa.Server
	// computed on its CPU path (batch.Options.CPUOffload) instead of the
	// device.
	DeviceMs  *float64 `json:"device_kernel_ms,omitempty"`
	OnCPU     *float64 `json:"on_cpu_fraction,omitempty"`
	Signature string   `json:"signature"` // the scheme the server signed with
	Group     string   `json:"key_exchange"`
	Suite     string   `json:"cipher_suite"`
	Ratio     float64  `json:"gpu_over_cpu,omitempty"` // gpu rows: Rate / the cpu row's Rate (same version and concurrency)
}

const (
	// tlsHandshakeTimeout bounds one handshake, both sides, so a hung
	// device or peer fails the run instead of stalling it.
	tlsHandshakeTimeout = 60 * time.Second
	tlsServerName       = "gpucrypto.bench"
)

var _ = benchCommands.add(benchCommand{
	name: "tls",
	what: "crypto/tls handshakes/s, certificate key on the CPU and on the GPU",
	run:  cmdBenchTLS,
})

// cmdBenchTLS measures full TLS handshakes per second with crypto/tls,
// servers and clients in this process over in-memory connections
// (net.Pipe; --deployed: the server in a process of its own over loopback
// TCP, bench_tls_deployed.go), without session resumption, with the certificate's RSA key
// on the CPU (the *rsa.PrivateKey itself, crypto/rsa) and on the device
// (an rsa.Server Signer as tls.Certificate.PrivateKey): TLS 1.3 (RSA-PSS
// CertificateVerify) and TLS 1.2 ECDHE-RSA (ServerKeyExchange signature).
//
// The clients' work runs in the same process and shares its cores with
// the servers: key exchange, the signature check with the public key, the
// certificate check (the client trusts the self-signed certificate through
// RootCAs, so the chain is the certificate itself: no CA signature is
// checked) and record protection. The figures are therefore lower than a
// server alone would reach, and the CPU time per handshake counts both
// sides; --cpuprofile shows where it goes.
func cmdBenchTLS(args []string) error {
	fs := flag.NewFlagSet("bench tls", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	concFlag := fs.String("concurrency", "2048", "numbers of concurrent handshakes")
	seconds := fs.Float64("seconds", 3, "measured time per version, key and concurrency, after the warm-up; above 0")
	warmup := fs.Float64("warmup", 0.5, "seconds of handshakes before each measurement, not counted (goroutines ramp up, batch sizes settle); 0 or more")
	bits := fs.Int("bits", 2048, "RSA key size of the server certificate: 1024 to 4096, a multiple of 8")
	versionsFlag := fs.String("versions", "1.3,1.2", "TLS versions: 1.3, 1.2 (ECDHE-RSA with AES-128-GCM)")
	keysFlag := fs.String("keys", "cpu,gpu", "the certificate's key: cpu (RSA, crypto/rsa), gpu (RSA, an rsa.Server Signer on --device), ed25519 (--deployed only: an Ed25519 certificate, cheap to sign on the CPU: the ceiling of the server's other work)")
	deployed := fs.Bool("deployed", false, "the server in a process of its own pinned to --server-cpus (GOMAXPROCS to match), the clients in this one on --client-cpus, over loopback TCP (default: both in this process over in-memory connections)")
	serverCPUsFlag := fs.String("server-cpus", "", "--deployed: the server's CPUs (default: the first half)")
	clientCPUsFlag := fs.String("client-cpus", "", "--deployed: the clients' CPUs (default: the second half)")
	curvesFlag := fs.String("curves", "x25519mlkem768,x25519", "key exchange groups in preference order, both sides: x25519mlkem768, x25519, p256, p384, p521 (TLS 1.2 skips x25519mlkem768); the default is Go's")
	batchOptions := batchFlags(fs, "gpu: ")
	cpuProfile := fs.String("cpuprofile", "", "write a pprof CPU profile of the gpu-key measurements (warm-ups included) to this file")
	startTracing := traceFlag(fs) // with --deployed, of the clients' process
	report := jsonFlags(fs)
	applyCrashOutput := crashOutputFlag(fs)
	fs.Usage = benchUsage(fs, "tls")
	parseFlags(fs, args)
	if err := applyCrashOutput(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench tls: unexpected arguments %q", fs.Args())
	}

	// every flag is checked before the device is touched
	concurrency, err := positiveInts("concurrency", *concFlag)
	if err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	versions, err := flagWords("versions", *versionsFlag, []string{"1.3", "1.2"})
	if err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	keyNames := []string{"cpu", "gpu"}
	if *deployed {
		keyNames = append(keyNames, "ed25519")
	}
	keys, err := flagWords("keys", *keysFlag, keyNames)
	if err != nil {
		if strings.Contains(*keysFlag, "ed25519") && !*deployed {
			err = fmt.Errorf("%w; ed25519 with --deployed", err)
		}
		return fmt.Errorf("bench tls: %w", err)
	}
	if err := checkRSABits("bits", *bits); err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	curves, err := parseCurves(*curvesFlag)
	if err != nil {
		return err
	}
	groups := map[string]string{}
	for _, v := range versions {
		g, ok := negotiatedGroup(v, curves)
		if !ok {
			return fmt.Errorf("bench tls: --curves %s has no group TLS %s can use", *curvesFlag, v)
		}
		groups[v] = g.String()
	}
	if *cpuProfile != "" && !slices.Contains(keys, "gpu") {
		return fmt.Errorf("bench tls: --cpuprofile profiles the gpu-key measurements: add gpu to --keys")
	}
	dur, err := positiveSeconds("seconds", *seconds)
	if err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	warm, err := nonNegativeSeconds("warmup", *warmup)
	if err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	if err := checkBatchOptions(batchOptions()); err != nil {
		return fmt.Errorf("bench tls: %w", err)
	}
	if *deployed {
		setup, err := deployedCPUs(*serverCPUsFlag, *clientCPUsFlag)
		if err != nil {
			return fmt.Errorf("bench tls: %w", err)
		}
		stopTrace, err := startTracing()
		if err != nil {
			return err
		}
		defer stopTrace()
		setup.serverArgs = append([]string{"--bits", strconv.Itoa(*bits), "--curves", *curvesFlag,
			"--device", fs.Lookup("device").Value.String(), "--backend", fs.Lookup("backend").Value.String()}, batchArgs(batchOptions())...)
		setup.profile = *cpuProfile
		return benchDeployed(setup, report, keys, versions, concurrency, curves, groups, *bits, warm, dur)
	}
	stopTrace, err := startTracing()
	if err != nil {
		return err
	}
	defer stopTrace()

	key, err := benchKey(*bits)
	if err != nil {
		return err
	}
	cert, err := benchCertificate(key)
	if err != nil {
		return err
	}

	// The device, only when a gpu key is asked for: set up before any
	// measurement, so that a device problem shows at once.
	devName, backend := "none", "--keys without gpu"
	var (
		dev    *device.Device
		engine *rsa.Engine
		server *rsa.Server
		signer *rsa.Signer
	)
	if slices.Contains(keys, "gpu") {
		d, err := pickDevice()
		if err != nil {
			return err
		}
		dev, devName, backend = d, d.Name, d.Backend
		if engine, err = rsa.NewEngine(d); err != nil {
			return err
		}
		if err := engine.Warm(*bits); err != nil {
			return err
		}
		if server, err = rsa.NewServer(batchOptions(), engine); err != nil {
			return err
		}
		defer server.Close()
		if signer, err = server.Signer(key); err != nil {
			return err
		}
	}

	opts := batchOptions()
	rep := tlsReport{runInfo: newRunInfo(dev, devName, backend), Bits: *bits, Seconds: *seconds, Warmup: *warmup,
		MaxBatch: opts.MaxBatch, MaxDelay: durationOrEmpty(opts.MaxDelay), Pipeline: opts.Pipeline, Offload: opts.CPUOffload}
	if err := report.start(rep); err != nil {
		return err
	}
	defer report.close()
	// each row is printed (and written to --json-out) as soon as it is
	// measured
	var table *rowTable
	if !report.toStdout() {
		fmt.Printf("device: %s (%s)  commit: %s  %s\nCPU: %s, %d threads  RSA-%d  servers and clients in this process\n\n",
			devName, backend, commit(), runtime.Version(), cpuModel(), runtime.NumCPU(), *bits)
		table = newRowTable(os.Stdout, column{"TLS", 3}, column{"key", 3}, column{"concurrency", 0}, column{"handshakes/s", 0},
			column{"p50 ms", 8}, column{"p99 ms", 8}, column{"CPU ms/handshake", 0}, column{"signed on CPU path", 0},
			column{"signature", 24}, column{"key exchange", 14}, column{"gpu/cpu", 0})
	}
	var results []tlsResult
	var stopProfile func()
	defer func() {
		if stopProfile != nil {
			stopProfile()
		}
	}()
	for _, k := range keys {
		var priv crypto.Signer = key
		var counters func() (time.Duration, int64)
		if k == "gpu" {
			priv = signer
			counters = func() (time.Duration, int64) { st := server.Stats(); return st.DeviceTime, st.CPUOps }
			if *cpuProfile != "" {
				if stopProfile, err = startCPUProfile(*cpuProfile); err != nil {
					return err
				}
			}
		}
		for _, v := range versions {
			// One handshake with the key wrapped to see it sign, and how.
			sig, suite, err := tlsProbe(v, cert, priv, curves)
			if err != nil {
				return fmt.Errorf("bench tls %s %s: %w", v, k, err)
			}
			srv, cli := tlsConfigs(v, cert, priv, curves)
			for _, n := range concurrency {
				fmt.Fprintf(os.Stderr, "TLS %s, %s key, %d concurrent: measuring\n", v, k, n)
				var fallbacks int64
				if engine != nil {
					fallbacks = engine.Stats().Fallbacks
				}
				load, err := runHandshakes(srv, cli, n, warm, dur, counters)
				if err != nil {
					return fmt.Errorf("bench tls %s %s, %d concurrent: %w", v, k, n, err)
				}
				r := tlsResult{Version: v, Key: k, Concurrency: n, Rate: float64(load.completed) / load.window.Seconds(),
					Handshakes: load.completed, P50Ms: load.percentileMs(0.50), P99Ms: load.percentileMs(0.99),
					Signature: sig, Group: groups[v], Suite: suite}
				if load.completed > 0 {
					r.CPUMs = float64(load.cpu) / 1e6 / float64(load.completed)
				}
				var onCPU float64
				if k == "gpu" {
					// one signature per handshake (tlsProbe checked)
					onCPU = min(1, float64(load.onCPU)/float64(max(load.completed, 1)))
					deviceMs := float64(load.device) / 1e6
					r.OnCPU, r.DeviceMs = &onCPU, &deviceMs
					if engine.Stats().Fallbacks > fallbacks {
						return fmt.Errorf("bench tls %s gpu: the device failed; batches were recomputed on the CPU", v)
					}
					if load.device <= 0 {
						if load.onCPU == 0 {
							return fmt.Errorf("bench tls %s gpu: the signatures reached neither the device nor the CPU path", v)
						}
						fmt.Fprintf(os.Stderr, "bench tls: TLS %s, %d concurrent: no RSA kernel ran on the device in the window: the CPU path took every signature (--offload -1 turns it off)\n", v, n)
					}
				}
				// gpu over cpu, where the cpu row of the same version and
				// concurrency was measured before
				j := slices.IndexFunc(results, func(c tlsResult) bool {
					return c.Key == "cpu" && c.Version == r.Version && c.Concurrency == r.Concurrency
				})
				if k == "gpu" && j >= 0 && results[j].Rate > 0 {
					r.Ratio = r.Rate / results[j].Rate
				}
				fmt.Fprintf(os.Stderr, "TLS %s, %s key, %d concurrent: %.0f handshakes/s, p50 %.2f ms, p99 %.2f ms, CPU %.3f ms/handshake",
					v, k, n, r.Rate, r.P50Ms, r.P99Ms, r.CPUMs)
				if k == "gpu" {
					fmt.Fprintf(os.Stderr, ", %.1f%% signed on the CPU path", 100*onCPU)
				}
				fmt.Fprintln(os.Stderr)
				results = append(results, r)
				if err := report.result(r); err != nil {
					return err
				}
				if table != nil {
					table.tlsRow(r)
				}
			}
		}
		if stopProfile != nil {
			stopProfile()
			stopProfile = nil
		}
	}
	// the document: by version, then concurrency, then key
	slices.SortStableFunc(results, func(a, b tlsResult) int {
		if c := slices.Index(versions, a.Version) - slices.Index(versions, b.Version); c != 0 {
			return c
		}
		if c := a.Concurrency - b.Concurrency; c != 0 {
			return c
		}
		return slices.Index(keys, a.Key) - slices.Index(keys, b.Key)
	})
	rep.Results = results
	return report.finish(rep)
}

// tlsReport is the JSON of bench tls (in one process): the run, the
// certificate's key size, the times and the gpu key's batch.Options.
type tlsReport struct {
	runInfo
	Bits     int         `json:"bits"`
	Seconds  float64     `json:"seconds"`
	Warmup   float64     `json:"warmup_seconds"`
	MaxBatch int         `json:"max_batch,omitempty"`
	MaxDelay string      `json:"max_delay,omitempty"`
	Pipeline int         `json:"pipeline,omitempty"`
	Offload  int         `json:"cpu_offload,omitempty"`
	Results  []tlsResult `json:"results,omitempty"` // absent from the first line of --json-out (the run)
}

// tlsRow prints r as a row of bench tls's table.
func (t *rowTable) tlsRow(r tlsResult) {
	ratio, onCPU := "-", "-"
	if r.Ratio > 0 {
		ratio = fmt.Sprintf("%.2fx", r.Ratio)
	}
	if r.OnCPU != nil {
		onCPU = fmt.Sprintf("%.1f%%", 100**r.OnCPU)
	}
	t.row(r.Version, r.Key, strconv.Itoa(r.Concurrency), human(r.Rate), fmt.Sprintf("%.2f", r.P50Ms), fmt.Sprintf("%.2f", r.P99Ms),
		fmt.Sprintf("%.3f", r.CPUMs), onCPU, r.Signature, r.Group, ratio)
}

// checkRSABits checks an RSA key size of flag --name: 1024 to 4096 bits,
// a multiple of 8 (what the engines take).
func checkRSABits(name string, bits int) error {
	if bits < 1024 || bits > 4096 || bits%8 != 0 {
		return fmt.Errorf("--%s %d: RSA key sizes are 1024 to 4096 bits, a multiple of 8", name, bits)
	}
	return nil
}

var tlsVersions = map[string]uint16{"1.3": tls.VersionTLS13, "1.2": tls.VersionTLS12}

// tlsCurves are the --curves names.
var tlsCurves = map[string]tls.CurveID{
	"x25519mlkem768": tls.X25519MLKEM768,
	"x25519":         tls.X25519,
	"p256":           tls.CurveP256,
	"p384":           tls.CurveP384,
	"p521":           tls.CurveP521,
}

func parseCurves(s string) ([]tls.CurveID, error) {
	var out []tls.CurveID
	for _, name := range strings.Split(s, ",") {
		id, ok := tlsCurves[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			return nil, fmt.Errorf("bench tls: --curves %q: unknown group %q (have x25519mlkem768, x25519, p256, p384, p521)", s, name)
		}
		out = append(out, id)
	}
	return out, nil
}

// negotiatedGroup is the group a handshake of version v between two
// crypto/tls peers that both prefer curves settles on: the first one the
// version allows (TLS 1.3: the client sends a key share for it, the server
// takes its first preference that has one). ConnectionState.CurveID would
// say so after the fact, but it needs Go 1.25 and go.mod asks for 1.24.
func negotiatedGroup(v string, curves []tls.CurveID) (tls.CurveID, bool) {
	for _, c := range curves {
		if v == "1.2" && c == tls.X25519MLKEM768 {
			continue
		}
		return c, true
	}
	return 0, false
}

// benchCert is the server certificate: self-signed, for tlsServerName.
type benchCert struct {
	der  []byte
	leaf *x509.Certificate
	pool *x509.CertPool // the clients' RootCAs: the certificate itself
}

func benchCertificate(key crypto.Signer) (*benchCert, error) {
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: tlsServerName},
		DNSNames:              []string{tlsServerName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &benchCert{der: der, leaf: leaf, pool: pool}, nil
}

// tlsConfigs are the server's and the client's configurations for version
// v with priv as the certificate's key: full handshakes only (no session
// tickets on the server, no session cache on the client), TLS 1.2 limited
// to ECDHE-RSA with AES-128-GCM. The client verifies the server: it trusts
// the certificate through RootCAs (not InsecureSkipVerify) and checks the
// name, as a real client would; a real chain would add a CA signature
// check on the client side.
func tlsConfigs(v string, cert *benchCert, priv crypto.Signer, curves []tls.CurveID) (srv, cli *tls.Config) {
	ver := tlsVersions[v]
	srv = &tls.Config{
		Certificates:           []tls.Certificate{{Certificate: [][]byte{cert.der}, PrivateKey: priv, Leaf: cert.leaf}},
		MinVersion:             ver,
		MaxVersion:             ver,
		CurvePreferences:       curves,
		SessionTicketsDisabled: true,
	}
	cli = &tls.Config{
		RootCAs:          cert.pool,
		ServerName:       tlsServerName,
		MinVersion:       ver,
		MaxVersion:       ver,
		CurvePreferences: curves,
	}
	if ver == tls.VersionTLS12 {
		suites := []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
		srv.CipherSuites, cli.CipherSuites = suites, suites
	}
	return srv, cli
}

// recordingSigner wraps a certificate key for one probe handshake and
// records the options of each signature it makes.
type recordingSigner struct {
	crypto.Signer
	mu   sync.Mutex
	opts []crypto.SignerOpts
}

func (r *recordingSigner) Sign(random io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	r.mu.Lock()
	r.opts = append(r.opts, opts)
	r.mu.Unlock()
	return r.Signer.Sign(random, digest, opts)
}

// tlsProbe runs one handshake of version v with priv wrapped in a
// recordingSigner: it checks that the server signed once with priv (for
// a gpu key, through the rsa.Server) and that the client accepted it, and
// returns the signature scheme and the cipher suite.
func tlsProbe(v string, cert *benchCert, priv crypto.Signer, curves []tls.CurveID) (sig, suite string, err error) {
	rec := &recordingSigner{Signer: priv}
	srv, cli := tlsConfigs(v, cert, rec, curves)
	c, err := tlsHandshake(context.Background(), srv, cli)
	if err != nil {
		return "", "", err
	}
	if len(rec.opts) != 1 {
		return "", "", fmt.Errorf("the server signed %d times in one handshake, want 1", len(rec.opts))
	}
	return signatureScheme(rec.opts[0]), tls.CipherSuiteName(c.ConnectionState().CipherSuite), nil
}

// signatureScheme names the TLS signature scheme an RSA signature with
// opts is (IANA names).
func signatureScheme(opts crypto.SignerOpts) string {
	h := strings.ToLower(strings.ReplaceAll(opts.HashFunc().String(), "-", ""))
	if _, ok := opts.(*stdrsa.PSSOptions); ok {
		return "rsa_pss_rsae_" + h
	}
	return "rsa_pkcs1_" + h
}

// tlsHandshake runs one full handshake over a fresh net.Pipe, the server
// side in its own goroutine, and closes both ends. It returns the client
// connection (closed; its ConnectionState stays readable) once both sides
// have finished, or the first error. A handshake is bounded by
// tlsHandshakeTimeout.
func tlsHandshake(ctx context.Context, srv, cli *tls.Config) (*tls.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	sc, cc := net.Pipe()
	// The raw ends are closed, not the tls.Conns: tls.Conn.Close sends
	// close_notify, which on a net.Pipe waits for a reader that is gone.
	defer sc.Close()
	defer cc.Close()
	serverDone := make(chan error, 1)
	// A side that fails closes the pipe: the other one, blocked on it,
	// returns at once (crypto/tls may leave its alert unsent in a buffer).
	go func() {
		err := tls.Server(sc, srv).HandshakeContext(ctx)
		if err != nil {
			sc.Close()
		}
		serverDone <- err
	}()
	c := tls.Client(cc, cli)
	clientErr := c.HandshakeContext(ctx)
	if clientErr != nil {
		cc.Close()
	}
	var serverErr error
	select {
	case serverErr = <-serverDone:
	case <-ctx.Done():
		select {
		case serverErr = <-serverDone:
		default:
			// the server is stuck outside I/O (in Sign, say): do not wait on it
			serverErr = fmt.Errorf("server handshake did not finish: %w", ctx.Err())
		}
	}
	switch {
	case serverErr != nil && clientErr != nil:
		return nil, fmt.Errorf("server: %w (client: %v)", serverErr, clientErr)
	case serverErr != nil:
		return nil, fmt.Errorf("server: %w", serverErr)
	case clientErr != nil:
		return nil, fmt.Errorf("client: %w", clientErr)
	}
	return c, nil
}

// tlsLoad is what runHandshakes measured in its window.
type tlsLoad struct {
	loadWindow               // handshakes completed (both sides) in the window; latencies of those started in it
	window     time.Duration // its length
	cpu        time.Duration // process CPU time (user + system) in the window
	device     time.Duration // growth of counters' device time in the window
	onCPU      int64         // growth of counters' CPU-path count in the window
}

// runHandshakes runs n goroutines, each doing one handshake at a time
// (tlsHandshake with srv and cli), for warm and then dur (runLoad).
// counters (nil: none) gives the device time and the CPU path's count so
// far; it is sampled, with the process CPU time, at the window's ends. The
// first error stops every goroutine and is returned.
func runHandshakes(srv, cli *tls.Config, n int, warm, dur time.Duration, counters func() (time.Duration, int64)) (tlsLoad, error) {
	type sample struct {
		cpu, device time.Duration
		onCPU       int64
	}
	var s [2]sample
	w, err := runLoad(n, warm, dur, func(ctx context.Context) error {
		_, err := tlsHandshake(ctx, srv, cli)
		return err
	}, func(start bool) {
		k := 1
		if start {
			k = 0
		}
		s[k].cpu, _ = cputime.Process()
		if counters != nil {
			s[k].device, s[k].onCPU = counters()
		}
	})
	if err != nil {
		return tlsLoad{}, err
	}
	return tlsLoad{loadWindow: w, window: dur,
		cpu: s[1].cpu - s[0].cpu, device: s[1].device - s[0].device, onCPU: s[1].onCPU - s[0].onCPU}, nil
}

func durationOrEmpty(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
