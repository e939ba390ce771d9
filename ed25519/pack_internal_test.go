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
