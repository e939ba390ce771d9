package ed25519

import (
	"encoding/binary"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// The lengths the kernels read as marks (kernels/ed25519.cl): skip marks
// an element the host judged or computes itself, hashed one whose
// challenge k the host computed (a message longer than DeviceMessageMax).
const (
	lengthSkip   = 0xffffffff
	lengthHashed = 0xfffffffe
)

// putValues writes element k's 32 bytes value(k) (nil: zeros) into the
// limb-major rows words (8 rows of n words) for every k in [lo, hi),
// tile elements at a time: each row then takes a run of tile neighbouring
// words (64 bytes) instead of one scattered word per element,
// which cost most of the host's time in a batch of a million.
func putValues(words []uint32, n, lo, hi int, value func(k int) []byte) {
	var rows [8][tile]uint32
	for t := lo; t < hi; t += tile {
		m := min(tile, hi-t)
		for e := range m {
			v := value(t + e)
			for j := range 8 {
				if v == nil {
					rows[j][e] = 0
				} else {
					rows[j][e] = binary.LittleEndian.Uint32(v[4*j:])
				}
			}
		}
		for j := range 8 {
			copy(words[j*n+t:j*n+t+m], rows[j][:m])
		}
	}
	clear(rows[:]) // it held seeds
}

// getValues is the converse: element k of the rows into out(k) (32 bytes;
// nil: skipped) for every k in [lo, hi).
func getValues(words []uint32, n, lo, hi int, out func(k int) []byte) {
	var rows [8][tile]uint32
	for t := lo; t < hi; t += tile {
		m := min(tile, hi-t)
		for j := range 8 {
			copy(rows[j][:m], words[j*n+t:j*n+t+m])
		}
		for e := range m {
			if v := out(t + e); v != nil {
				for j := range 8 {
					binary.LittleEndian.PutUint32(v[4*j:], rows[j][e])
				}
			}
		}
	}
}

// tile is the number of elements putValues and getValues move at once:
// runs of 16 words (64 bytes) of each row.
const tile = 16

// messageRows are a device batch's messages: their bytes one after the
// other, and each element's offset and length there (or a mark).
type messageRows struct {
	bytes            []byte
	offsets, lengths []uint32
}

// packMessages lays out msgs, the messages of the batch ch (elements [ch.Lo,
// ch.Hi)) in staging memory: those whose lengths[k] the caller left
// below lengthHashed, whose bytes the kernels read; the marks stay.
func packMessages(ch *engine.Chunk, msgs [][]byte, lengths []uint32) (*messageRows, error) {
	n := ch.Hi - ch.Lo
	offsets, err := ch.Words(n)
	if err != nil {
		return nil, err
	}
	total := 0
	for k, l := range lengths {
		offsets[k] = uint32(total)
		if l < lengthHashed {
			total += int(l)
		}
	}
	bytes, err := ch.Staging(max(total, 4))
	if err != nil {
		return nil, err
	}
	batch.Parallel(n, hostChunk, func(a, b int) {
		for k := a; k < b; k++ {
			if lengths[k] < lengthHashed {
				copy(bytes[offsets[k]:], msgs[k])
			}
		}
	})
	return &messageRows{bytes: bytes, offsets: offsets, lengths: lengths}, nil
}

// args enqueues the messages' buffers and the call's dom2 prefix (dom, a
// buffer of one word when there is none: the kernels do not read it
// then) and returns them as the kernels take them: messages, offsets,
// lengths, dom, its length.
func (m *messageRows) args(cmds *device.Commands, dom []byte) ([]any, error) {
	bytes, err := cmds.Buffer(len(m.bytes), false)
	if err != nil {
		return nil, err
	}
	if err := cmds.Write(bytes, m.bytes); err != nil {
		return nil, err
	}
	offsets, err := cmds.Upload(m.offsets, false)
	if err != nil {
		return nil, err
	}
	lengths, err := cmds.Upload(m.lengths, false)
	if err != nil {
		return nil, err
	}
	ddom, err := cmds.Buffer(max(len(dom), 4), false)
	if err != nil {
		return nil, err
	}
	if len(dom) > 0 {
		if err := cmds.Write(ddom, dom); err != nil {
			return nil, err
		}
	}
	return []any{bytes, offsets, lengths, ddom, uint32(len(dom))}, nil
}

// cutByMessages is a Plan.Cut: batches of at most pipelineChunk elements
// and batchMessageBytes of messages.
func cutByMessages(msgs [][]byte) func(lo, hi int) int {
	return func(lo, hi int) int {
		end, total := lo, 0
		for end < hi && end-lo < pipelineChunk {
			l := len(msgs[end])
			if l > DeviceMessageMax {
				l = 0 // hashed or signed by the host
			}
			if end > lo && total+l > batchMessageBytes {
				break
			}
			total += l
			end++
		}
		return end
	}
}
