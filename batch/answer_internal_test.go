package batch

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countingCompleter records each Complete it receives.
type countingCompleter struct {
	calls atomic.Int32
	val   atomic.Int64
	err   atomic.Pointer[error]
}

func (c *countingCompleter) Complete(val int, err error) {
	c.calls.Add(1)
	c.val.Store(int64(val))
	if err != nil {
		c.err.Store(&err)
	}
}

// answer gives every request of a batch its own outcome exactly once,
// blocking callers (channels) and Completers alike, in pieces
// (Options.AnswerPiece) and with Parallel: for batches shorter than a
// piece, of whole pieces and with a part of one, and with per-request
// errors.
func TestAnswerPieces(t *testing.T) {
	for _, piece := range []int{0, 128} {
		t.Run(fmt.Sprintf("piece=%d", piece), func(t *testing.T) { testAnswer(t, piece, false) })
	}
	t.Run("piece=128/alongside", func(t *testing.T) { testAnswer(t, 128, true) })
}

func testAnswer(t *testing.T, piece int, alongside bool) {
	var meter Meter
	b := &Batcher[int, int]{opts: Options{Meter: &meter, AnswerPiece: piece, AnswerAlongside: alongside}}
	failed := errors.New("element failed")
	total := 0
	for _, n := range []int{1, 127, 128, 129, 5*128 + 37, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			live := make([]item[int, int], n)
			completers := make([]*countingCompleter, n)
			channels := make([]chan outcome[int], n)
			vals := make([]int, n)
			errs := make([]error, n)
			for i := range live {
				live[i] = item[int, int]{ctx: context.Background(), req: i, start: stamp(time.Now())}
				if i%3 == 0 {
					completers[i] = &countingCompleter{}
					live[i].complete = completers[i]
				} else {
					channels[i] = make(chan outcome[int], 2)
					live[i].complete = answerChan[int](channels[i])
				}
				vals[i] = 1000 + i
				if i%7 == 0 {
					errs[i] = failed
				}
			}
			b.answer(live, results(vals, &Error{Errs: errs}, n))
			for i := range live {
				var o outcome[int]
				if c := completers[i]; c != nil {
					require.EqualValues(t, 1, c.calls.Load(), "request %d completed once", i)
					o.val = int(c.val.Load())
					if e := c.err.Load(); e != nil {
						o.err = *e
					}
				} else {
					require.Len(t, channels[i], 1, "request %d answered once", i)
					o = <-channels[i]
				}
				if i%7 == 0 {
					require.ErrorIs(t, o.err, failed, "request %d", i)
				} else {
					require.NoError(t, o.err, "request %d", i)
					require.Equal(t, 1000+i, o.val, "request %d", i)
				}
			}
			total += n
			require.EqualValues(t, total, meter.Stats().Calls, "every request counted in the Meter")
		})
	}
}
