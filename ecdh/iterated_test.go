package ecdh_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
	"github.com/gpucrypto/gpucrypto/testvectors"
)

// envMillion, when "1", adds RFC 7748 §5.2's 1,000,000-iteration vectors:
// on the device in TestRFC7748IteratedMillion, on the CPU backend in
// TestRFC7748. One work-item runs the chain alone, latency-bound, so the
// vectors take far longer than the rest of the tests, on a GPU as on a
// CPU device.
const envMillion = "GPUCRYPTO_RFC7748_MILLION"

// The million-iteration test on the device in parts: with envCheckpoint a
// directory, each curve's chain starts from its checkpoint there
// (<curve>.json) when one exists and writes it after every launch; with
// envFor a duration (time.ParseDuration), a chain that has run that long
// stops and the test skips, the checkpoint left for the next run. So the
// hour of X448 can run as several device calls, one machine after
// another (the checkpoint holds only the public k and u of the chain).
const (
	envCheckpoint = "GPUCRYPTO_RFC7748_CHECKPOINT"
	envFor        = "GPUCRYPTO_RFC7748_FOR"
)

// checkpoint is the state of an iterated chain: k and u after Iterations
// iterations (hex, the RFC's byte strings).
type checkpoint struct {
	Curve      string `json:"curve"`
	Iterations int    `json:"iterations"`
	K          string `json:"k"`
	U          string `json:"u"`
}

// iterated returns c's starting k (= u) of RFC 7748 §5.2's iterated test
// and the k it gives after each number of iterations the RFC lists.
func iterated(t *testing.T, c ecdh.Curve) (start []byte, want map[int]string) {
	t.Helper()
	v25519, v448, err := testvectors.RFC7748()
	require.NoError(t, err)
	v := v25519
	if c == ecdh.X448() {
		v = v448
	}
	want = map[int]string{}
	for _, r := range v.Iterated.Results {
		want[r.Iterations] = r.K
	}
	require.Len(t, want, 3, "%s: the RFC gives 1, 1,000 and 1,000,000 iterations", c)
	return unhex(t, v.Iterated.Initial), want
}

// chain is an ecdh.Iterator on d started at c's RFC 7748 §5.2 k = u,
// released when the test ends, with the count of iterations run so far.
type chain struct {
	t    *testing.T
	c    ecdh.Curve
	it   *ecdh.Iterator
	done int
	want map[int]string
}

func newChain(t *testing.T, d *device.Device, c ecdh.Curve) *chain {
	start, _ := iterated(t, c)
	return resumeChain(t, d, c, checkpoint{K: hex.EncodeToString(start), U: hex.EncodeToString(start)})
}

// resumeChain is a chain on d at the state cp.
func resumeChain(t *testing.T, d *device.Device, c ecdh.Curve, cp checkpoint) *chain {
	_, want := iterated(t, c)
	it, err := ecdh.NewIterator(d, c, unhex(t, cp.K), unhex(t, cp.U))
	require.NoError(t, err)
	t.Cleanup(func() { it.Release() })
	return &chain{t: t, c: c, it: it, done: cp.Iterations, want: want}
}

// save writes the chain's state to path.
func (ch *chain) save(path string) {
	ch.t.Helper()
	k, err := ch.it.K()
	require.NoError(ch.t, err)
	u, err := ch.it.U()
	require.NoError(ch.t, err)
	data, err := json.MarshalIndent(checkpoint{Curve: ch.c.String(), Iterations: ch.done, K: hex.EncodeToString(k), U: hex.EncodeToString(u)}, "", "  ")
	require.NoError(ch.t, err)
	require.NoError(ch.t, os.WriteFile(path+".tmp", append(data, '\n'), 0o644))
	require.NoError(ch.t, os.Rename(path+".tmp", path))
}

// runTo runs the chain on to total iterations in one launch, checks k
// against the RFC when it gives a value for total, and returns the time
// the launch took.
func (ch *chain) runTo(total int) time.Duration {
	ch.t.Helper()
	start := time.Now()
	require.NoError(ch.t, ch.it.Run(total-ch.done), "%s: iterations %d to %d", ch.c, ch.done+1, total)
	elapsed := time.Since(start)
	ch.done = total
	if w, ok := ch.want[total]; ok {
		k, err := ch.it.K()
		require.NoError(ch.t, err)
		require.Equal(ch.t, w, hex.EncodeToString(k), "%s: k after %d iterations", ch.c, total)
	}
	return elapsed
}

// logRate logs the time of n iterations and their rate: on a GPU, the
// speed of one work-item alone (latency-bound).
func logRate(t *testing.T, c ecdh.Curve, n int, elapsed time.Duration) {
	t.Helper()
	t.Logf("%s: %d iterations in %v (%.0f/s)", c, n, elapsed, float64(n)/elapsed.Seconds())
}

// RFC 7748 §5.2's iterated vectors after 1 and 1,000 iterations, the chain
// run on the device by the production ladder: k, u = X(k, u), k, with k
// decoded as a scalar and u as a u-coordinate at every step. The rate of
// the 999 iterations after the first (whose launch also prepares the
// kernel) is logged, with what 1,000,000 would take at that rate.
func TestRFC7748IteratedOnDevice(t *testing.T) {
	d := devicetest.Device(t)
	for _, c := range ecdh.Curves() {
		t.Run(c.String(), func(t *testing.T) {
			ch := newChain(t, d, c)
			ch.runTo(1)
			elapsed := ch.runTo(1000)
			logRate(t, c, 999, elapsed)
			t.Logf("%s: 1,000,000 iterations would take about %v", c, (elapsed * 1000000 / 999).Round(time.Second))
		})
	}
}

// launchTarget is about how long one launch of the million-iteration test
// runs: far below any watchdog, long enough that launches cost nothing.
const launchTarget = 5 * time.Second

// RFC 7748 §5.2's iterated vectors after 1, 1,000 and 1,000,000
// iterations on the device (only with GPUCRYPTO_RFC7748_MILLION=1, and a
// -timeout that allows the hour or more it takes: see envMillion; or in
// parts: envCheckpoint, envFor). The chain runs in launches of about
// launchTarget each, sized from the rate so far; the elapsed time and the
// rate are logged, and the progress about once a minute.
func TestRFC7748IteratedMillion(t *testing.T) {
	if os.Getenv(envMillion) != "1" {
		t.Skipf("set %s=1 to run the 1,000,000-iteration vectors", envMillion)
	}
	dir := os.Getenv(envCheckpoint)
	var budget time.Duration
	if s := os.Getenv(envFor); s != "" {
		var err error
		budget, err = time.ParseDuration(s)
		require.NoError(t, err, envFor)
	}
	d := devicetest.Device(t)
	const total = 1000000
	for _, c := range ecdh.Curves() {
		t.Run(c.String(), func(t *testing.T) {
			path := ""
			var ch *chain
			if dir != "" {
				path = filepath.Join(dir, c.String()+".json")
				if data, err := os.ReadFile(path); err == nil {
					var cp checkpoint
					require.NoError(t, json.Unmarshal(data, &cp), path)
					require.Equal(t, c.String(), cp.Curve, path)
					require.True(t, cp.Iterations >= 1 && cp.Iterations <= total, "%s: %d iterations", path, cp.Iterations)
					ch = resumeChain(t, d, c, cp)
					t.Logf("%s: resumed at %d iterations from %s", c, cp.Iterations, path)
				}
			}
			if ch == nil {
				ch = newChain(t, d, c)
				ch.runTo(1) // the first launch also prepares the kernel: not timed
			}
			start, logged, from := time.Now(), time.Now(), ch.done
			if ch.done < 1000 {
				ch.runTo(1000)
			}
			for ch.done < total {
				if path != "" {
					ch.save(path)
				}
				if budget > 0 && time.Since(start) >= budget {
					logRate(t, c, ch.done-from, time.Since(start))
					t.Skipf("%s: stopped at %d iterations after %v; the chain goes on from %s", c, ch.done, budget, path)
				}
				rate := float64(ch.done-from) / time.Since(start).Seconds()
				n := min(max(int(rate*launchTarget.Seconds()), 1), total-ch.done)
				ch.runTo(ch.done + n)
				if time.Since(logged) >= time.Minute {
					logged = time.Now()
					t.Logf("%s: %d iterations, %v", c, ch.done, time.Since(start).Round(time.Second))
				}
			}
			if path != "" {
				ch.save(path)
			}
			logRate(t, c, total-from, time.Since(start))
		})
	}
}
