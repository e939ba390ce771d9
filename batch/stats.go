package batch

import (
	"fmt"
	"time"
)

// Route says where an Engine computes its calls.
type Route int

const (
	// RouteAuto, the default, computes each call where its measured time
	// is lower: on the device, or on the CPU cores with the same
	// functions as Go's crypto/* (see each package's Engine). The times are
	// measured per operation, key or message size and batch size, and
	// renewed while the engine runs.
	RouteAuto Route = iota
	// RouteDevice computes every call on the device (the CPU still
	// recomputes a batch the device failed).
	RouteDevice
	// RouteCPU computes every call on the CPU.
	RouteCPU
)

func (r Route) String() string {
	switch r {
	case RouteAuto:
		return "auto"
	case RouteDevice:
		return "device"
	case RouteCPU:
		return "cpu"
	}
	return fmt.Sprintf("Route(%d)", int(r))
}

// BatchSizeBuckets is the length of Stats.BatchSizes.
const BatchSizeBuckets = 32

// Stats are an Engine's or a Server's counts since it was made.
type Stats struct {
	// Calls is the number of batch calls (an Engine) or of requests (a
	// Server).
	Calls int64
	// DeviceOps and CPUOps are the elements computed on the device and on
	// the CPU, the latter including those recomputed after a device
	// failure (FallbackOps).
	DeviceOps, CPUOps int64
	// Fallbacks is the number of device batches that failed, or failed the
	// result check, and were recomputed on the CPU; FallbackOps their
	// elements.
	Fallbacks, FallbackOps int64
	// Faults is the number of elements whose device result failed the
	// device's own fault check and was computed again on the CPU, its
	// batch's others kept: Ed25519 and deterministic ECDSA signatures
	// whose nonce's point R, computed a second time on the device by
	// other means, came out different (a fault of the device: a
	// signature with a wrong R beside a right one gives the private key).
	// They stay counted in DeviceOps with their batch.
	Faults int64
	// Batches is the number of device batches (a large call runs as
	// several); BatchSizes[k] counts those of 2^k to 2^(k+1) − 1
	// elements.
	Batches    int64
	BatchSizes [BatchSizeBuckets]int64
	// QueueDepth is the number of a Server's requests waiting for a batch
	// now (0 for an Engine).
	QueueDepth int64
	// LatencyP50 and LatencyP99 are the median and 99th percentile of the
	// time a call (an Engine) or a request (a Server) took, from a
	// histogram with buckets of 3–6% (each the upper bound of its bucket).
	// Of the requests a Server computes at once in its caller's goroutine
	// (Batcher.DoInline), about one in eight is timed: reading
	// the clock twice would cost a share of a request as short as an
	// AES-GCM record's seal.
	LatencyP50, LatencyP99 time.Duration
	// DeviceTime is the time the device spent in the kernels of the
	// batches: benchmarks divide work by it.
	DeviceTime time.Duration
	// BatchTime is the wall time of the device batches, from the start of
	// their host work (packing the inputs) to its end (unpacking the
	// results, zeroing their host memory), summed over batches; WaitTime is the part of it spent
	// waiting for the batches' device commands (copies and kernels). So
	// BatchTime − WaitTime is the host's own work, and WaitTime −
	// DeviceTime what the copies and queues add to the kernels: where a
	// large call's end-to-end time goes.
	BatchTime, WaitTime time.Duration
}

// Add adds the counts of o to s (a Server adds its engines'). The
// latencies and the queue depth are not added: a Server measures its own.
func (s *Stats) Add(o Stats) {
	s.DeviceOps += o.DeviceOps
	s.CPUOps += o.CPUOps
	s.Fallbacks += o.Fallbacks
	s.FallbackOps += o.FallbackOps
	s.Faults += o.Faults
	s.Batches += o.Batches
	for k := range s.BatchSizes {
		s.BatchSizes[k] += o.BatchSizes[k]
	}
	s.DeviceTime += o.DeviceTime
	s.BatchTime += o.BatchTime
	s.WaitTime += o.WaitTime
}

func (s Stats) String() string {
	return fmt.Sprintf("%d calls, %d on the device in %d batches (%v of kernels), %d on the CPU, %d fallbacks, %d faults, queue %d, latency p50 %v p99 %v",
		s.Calls, s.DeviceOps, s.Batches, s.DeviceTime, s.CPUOps, s.Fallbacks, s.Faults, s.QueueDepth, s.LatencyP50, s.LatencyP99)
}
