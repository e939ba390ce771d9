package device

import (
	"errors"
	"sync"
)

// errStrandedBuffer is the error of a stranded buffer's Release and of
// commands on it.
var errStrandedBuffer = errors.New("device: buffer left allocated: a failed command may still use it")

// errStrandedHost is the error of HostMemory.Free of stranded memory.
var errStrandedHost = errors.New("device: host memory left allocated: a failed copy may still use it")

// stranded holds what the commands whose end is unknown may still touch:
// the host memory and device buffers of a command whose wait failed on a
// queue that could not be finished either (a device lost half-way). None
// of it is freed or handed out again, for the life of the process: a
// leak, after a device failure, where freeing could let the device write
// into memory that the process has reused (a Go object, another batch's
// staging memory).
var stranded strandedSet

type strandedSet struct {
	mu      sync.Mutex
	host    [][]byte     // kept alive: Go memory stays allocated
	ranges  [][2]uintptr // their spans, for holds
	buffers []*Buffer
}

// strand keeps host and buffers for good, and marks the buffers so that
// Release leaves them allocated and no command uses them again.
func strand(host []byte, buffers []*Buffer) {
	for _, b := range buffers {
		b.mu.Lock()
		b.stranded = true
		b.mu.Unlock()
	}
	stranded.mu.Lock()
	defer stranded.mu.Unlock()
	stranded.buffers = append(stranded.buffers, buffers...)
	if len(host) > 0 {
		start, end := span(host)
		stranded.host = append(stranded.host, host)
		stranded.ranges = append(stranded.ranges, [2]uintptr{start, end})
	}
}

// holds reports whether b overlaps stranded host memory.
func (s *strandedSet) holds(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	start, end := span(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.ranges {
		if start < r[1] && r[0] < end {
			return true
		}
	}
	return false
}
