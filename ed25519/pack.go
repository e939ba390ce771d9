package ed25519

import (
	"encoding/binary"
	"sync"

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

// putValues writes element k's value value(k) (nil: zeros) into the
// limb-major rows words for every k in [lo, hi): as many rows of n words
// as the value has 32-bit words (len(words)/n, at most maxRows: 8 for a
// point or scalar, 16 for a signature (verification), whose halves'
// rows follow each other), word j of the value at j·n + k. It moves tile
// elements at a time: each row then takes a run of tile neighbouring
// words (64 bytes) instead of one scattered word per element, which cost
// most of the host's time in a batch of a million.
func putValues(words []uint32, n, lo, hi int, value func(k int) []byte) {
	rows := len(words) / n
	var tileRows [maxRows][tile]uint32
	for t := lo; t < hi; t += tile {
		m := min(tile, hi-t)
		for e := range m {
			v := value(t + e)
			if v == nil {
				for j := range rows {
					tileRows[j][e] = 0
				}
				continue
			}
			v = v[:4*rows]
			for j := range rows {
				tileRows[j][e] = binary.LittleEndian.Uint32(v[4*j:])
			}
		}
		for j := range rows {
			copy(words[j*n+t:j*n+t+m], tileRows[j][:m])
		}
	}
	clear(tileRows[:rows]) // it may have held seeds
}

// putRecords writes element k's value value(k) (its first size bytes;
// nil: zeros) into record k of records, size bytes each, element by
// element as the signing and key generation kernels read them, for every
// k in [lo, hi): one copy per element.
func putRecords(records []byte, size, lo, hi int, value func(k int) []byte) {
	for k := lo; k < hi; k++ {
		r := records[k*size : (k+1)*size]
		if v := value(k); v != nil {
			copy(r, v[:size])
		} else {
			clear(r)
		}
	}
}

// tile is the number of elements putValues moves at once: runs of 16
// words (64 bytes) of each row. maxRows is the most rows it moves: a
// 64-byte value's.
const (
	tile    = 16
	maxRows = 16
)

// messageRows are a device batch's messages: their bytes one after the
// other, and each element's offset and length there (or a mark).
type messageRows struct {
	bytes            []byte
	offsets, lengths []uint32
}

// packBatch fills the batch ch (elements [ch.Lo, ch.Hi)) in one pass on
// all cores, a part of cutPart elements at a time: element(lo, hi) fills
// the elements' other inputs and lengths[k] (a message length, or a mark:
// lengthSkip, lengthHashed) for the part's elements [lo, hi), then the
// part's offsets are written and its messages msgs copied into staging
// memory, where the kernels read those whose length is below
// lengthHashed. sums are the bytes of the parts' messages by deviceLength
// (messageCuts.take: what the batch's cut summed; nil: summed here, a
// pass of its own), so each part knows where its messages go before any
// is packed; a marked element keeps its deviceLength's place unread.
// One pass instead of three (the cut's sums, the inputs, then the
// messages' sums and copies): each pass on all cores waits for cores woken
// one after another, and the first batch's passes delay the first kernel.
func packBatch(ch *engine.Chunk, msgs [][]byte, lengths []uint32, sums []int, element func(lo, hi int)) (*messageRows, error) {
	n := ch.Hi - ch.Lo
	parts := (n + cutPart - 1) / cutPart
	part := func(p int) (lo, hi int) { return p * cutPart, min((p+1)*cutPart, n) }
	if len(sums) != parts {
		sums = partBytes(msgs)
	}
	starts := make([]int, parts+1) // of the parts' bytes; starts[parts]: the total
	for p, sum := range sums {
		starts[p+1] = starts[p] + sum
	}
	offsets, err := ch.Words(n)
	if err != nil {
		return nil, err
	}
	bytes, err := ch.Staging(max(starts[parts], 4))
	if err != nil {
		return nil, err
	}
	batch.Parallel(parts, 1, func(a, b int) {
		for p := a; p < b; p++ {
			lo, hi := part(p)
			element(lo, hi)
			at := starts[p]
			for k := lo; k < hi; k++ {
				offsets[k] = uint32(at)
				l := deviceLength(msgs[k])
				if lengths[k] < lengthHashed {
					copy(bytes[at:at+l], msgs[k])
				}
				at += l
			}
		}
	})
	ch.Public(device.Uint32Bytes(offsets))
	ch.Public(bytes)
	return &messageRows{bytes: bytes, offsets: offsets, lengths: lengths}, nil
}

// partBytes is the bytes of msgs (deviceBytes) by part of cutPart
// elements, summed on all cores.
func partBytes(msgs [][]byte) []int {
	sums := make([]int, (len(msgs)+cutPart-1)/cutPart)
	batch.Parallel(len(sums), 1, func(a, b int) {
		for p := a; p < b; p++ {
			sums[p] = deviceBytes(msgs[p*cutPart : min((p+1)*cutPart, len(msgs))])
		}
	})
	return sums
}

// deviceBytes is the bytes of msgs that a batch's message memory holds
// (deviceLength's).
func deviceBytes(msgs [][]byte) int {
	total := 0
	for _, m := range msgs {
		total += deviceLength(m)
	}
	return total
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

// messageCuts cuts a call's batches (cut, a Plan.Cut): at most
// pipelineChunk elements and batchMessageBytes of messages (a batch's
// first element is taken whatever its length). The lengths of the batch's
// window are summed in parts of cutPart elements on all cores first: the
// engine cuts a batch before packing it, so the first batch's cut delays
// the first kernel, and one core reading a window's 131,072 message
// lengths would take a large part of the time before it. It keeps those
// sums for the batch's packing (take, packBatch).
type messageCuts struct {
	msgs [][]byte
	mu   sync.Mutex
	sums map[int]cutSums // by the batch's first element
}

// cutSums are the bytes of a batch's messages by part, for the batch
// that ends at end.
type cutSums struct {
	end   int
	parts []int
}

func newMessageCuts(msgs [][]byte) *messageCuts {
	return &messageCuts{msgs: msgs, sums: map[int]cutSums{}}
}

// cut is the end of the batch that starts at lo, within [lo, hi).
func (c *messageCuts) cut(lo, hi int) int {
	hi = min(hi, lo+pipelineChunk)
	sums := partBytes(c.msgs[lo:hi])
	end, total := hi, 0
	for p, sum := range sums {
		if total+sum <= batchMessageBytes {
			total += sum
			continue
		}
		// the batch ends in part p: one element at a time from its start
		partial := 0
		for end = lo + p*cutPart; end < hi; end++ {
			l := deviceLength(c.msgs[end])
			if end > lo && total+l > batchMessageBytes {
				break
			}
			total += l
			partial += l
		}
		sums = sums[:p]
		if end > lo+p*cutPart { // part p holds some of the batch
			sums = append(sums, partial)
		}
		break
	}
	c.mu.Lock()
	c.sums[lo] = cutSums{end: end, parts: sums}
	c.mu.Unlock()
	return end
}

// take returns, and forgets, the part sums of the batch [lo, hi) as its
// cut made them; nil where no cut made that batch.
func (c *messageCuts) take(lo, hi int) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sums[lo]
	if !ok || s.end != hi {
		return nil
	}
	delete(c.sums, lo)
	return s.parts
}

// cutPart is the number of elements whose message lengths messageCuts.cut
// sums in one step.
const cutPart = 4096

// deviceLength is the bytes of msg that a batch's message memory holds:
// its length, or 0 for a message the host hashes or signs.
func deviceLength(msg []byte) int {
	if len(msg) > DeviceMessageMax {
		return 0
	}
	return len(msg)
}
