package ed25519

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// putValue writes the 32 bytes v into the limb-major rows words (8 rows
// of n words) as element k: word j of v at j·n + k.
func putValue(words []uint32, n, k int, v []byte) {
	for j := range 8 {
		words[j*n+k] = binary.LittleEndian.Uint32(v[4*j:])
	}
}

// getValue reads element k of the limb-major rows words into the 32
// bytes v.
func getValue(v []byte, words []uint32, n, k int) {
	for j := range 8 {
		binary.LittleEndian.PutUint32(v[4*j:], words[j*n+k])
	}
}

// putValues agrees with putValue element by element, for ranges that
// start and end inside a tile, nil values included; putRecords puts each
// value (zeros for nil) at its element's place.
func TestPackRows(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const n = 100
	values := make([][]byte, n)
	for k := range values {
		if k%7 == 3 {
			continue // nil: zeros
		}
		values[k] = make([]byte, 32)
		for i := range values[k] {
			values[k][i] = byte(r.Uint32())
		}
	}
	want := make([]uint32, 8*n)
	for k, v := range values {
		if v == nil {
			v = make([]byte, 32)
		}
		putValue(want, n, k, v)
	}
	got := make([]uint32, 8*n)
	for i := range got {
		got[i] = 0xdeadbeef
	}
	for _, cut := range [][2]int{{0, 5}, {5, 37}, {37, 38}, {38, 100}} {
		putValues(got, n, cut[0], cut[1], func(k int) []byte { return values[k] })
	}
	require.Equal(t, want, got)
	records := make([]byte, 32*n)
	for i := range records {
		records[i] = 0xa5
	}
	for _, cut := range [][2]int{{0, 21}, {21, 100}} {
		putRecords(records, 32, cut[0], cut[1], func(k int) []byte { return values[k] })
	}
	for k, v := range values {
		if v == nil {
			v = make([]byte, 32)
		}
		require.Equal(t, v, records[32*k:32*k+32], "element %d", k)
	}
}

// cutSerially is messageCuts.cut one element at a time, as it was before it
// summed parts on all cores: the reference of TestMessageCuts.
func cutSerially(msgs [][]byte, lo, hi int) int {
	end, total := lo, 0
	for end < hi && end-lo < pipelineChunk {
		l := deviceLength(msgs[end])
		if end > lo && total+l > batchMessageBytes {
			break
		}
		total += l
		end++
	}
	return end
}

// messageCuts.cut cuts where one element at a time does, for limits of
// elements and bytes that fall inside a part, at its edges and beyond
// the call, with messages the host hashes (longer than DeviceMessageMax)
// and empty ones, from any start; and take gives the batch's bytes by
// part of cutPart elements (what packBatch places the messages by), once.
func TestMessageCuts(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	msgs := make([][]byte, 5*cutPart+123)
	long := make([]byte, DeviceMessageMax+1)
	short := make([]byte, 300)
	for i := range msgs {
		switch r.IntN(50) {
		case 0:
			msgs[i] = long
		case 1:
			msgs[i] = nil
		default:
			msgs[i] = short[:r.IntN(len(short)+1)]
		}
	}
	chunk, limit := pipelineChunk, batchMessageBytes
	defer func() { pipelineChunk, batchMessageBytes = chunk, limit }()
	for _, c := range []struct{ chunk, limit int }{
		{1 << 17, 64 << 20}, {3 * cutPart, 1 << 20}, {cutPart, 100000}, {cutPart + 1, 150 * cutPart}, {10, 1}, {7000, 0}, {2 * cutPart, 150 * cutPart},
	} {
		pipelineChunk, batchMessageBytes = c.chunk, c.limit
		for _, lo := range []int{0, 1, cutPart - 1, cutPart, 3*cutPart + 17, len(msgs) - 1} {
			for _, hi := range []int{lo + 1, lo + cutPart, lo + 2*cutPart + 5, len(msgs)} {
				hi = min(hi, len(msgs))
				cuts := newMessageCuts(msgs)
				end := cuts.cut(lo, hi)
				require.Equal(t, cutSerially(msgs, lo, hi), end, "chunk %d, limit %d, [%d, %d)", c.chunk, c.limit, lo, hi)
				var want []int
				for a := lo; a < end; a += cutPart {
					want = append(want, deviceBytes(msgs[a:min(a+cutPart, end)]))
				}
				require.Nil(t, cuts.take(lo, end+1), "another batch's end")
				require.Equal(t, want, cuts.take(lo, end), "chunk %d, limit %d, [%d, %d): the parts' bytes", c.chunk, c.limit, lo, end)
				require.Nil(t, cuts.take(lo, end), "taken twice")
			}
		}
	}
}

// BenchmarkMessageCuts is the cut of a call's first batch of 131,072
// messages of 32 bytes (the engine's whole-call batches of 1,048,576),
// on all cores and, for comparison, one element at a time.
func BenchmarkMessageCuts(b *testing.B) {
	msgs := make([][]byte, 1<<20)
	for i := range msgs {
		msgs[i] = make([]byte, 32)
	}
	b.Run("parts", func(b *testing.B) {
		cut := newMessageCuts(msgs).cut
		for b.Loop() {
			cut(0, len(msgs))
		}
	})
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			cutSerially(msgs, 0, len(msgs))
		}
	})
}
