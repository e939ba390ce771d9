package device

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countedEvent is a pollingEvent that completes when told and counts the
// queries made of it.
type countedEvent struct {
	queries  atomic.Int64
	finished atomic.Bool
}

func (c *countedEvent) wait() error                      { return nil }
func (c *countedEvent) duration() (time.Duration, error) { return 0, nil }
func (c *countedEvent) release() error                   { return nil }
func (c *countedEvent) query() (bool, error) {
	c.queries.Add(1)
	return c.finished.Load(), nil
}

// TestPollBacksOff pins the back-off of Event.poll: the yields between two
// queries double up to pollYields; a poll that runs out its budget ends,
// having queried; a command that has completed ends the poll at its next
// query. (How many queries a wait saves depends on how fast the host
// yields, which a test cannot pin without timing it.)
func TestPollBacksOff(t *testing.T) {
	var gaps []int
	for y := 1; len(gaps) < 8; y = nextYields(y) {
		gaps = append(gaps, y)
	}
	require.Equal(t, []int{1, 2, 4, 8, 16, 32, 32, 32}, gaps)

	c := &countedEvent{}
	t0 := time.Now()
	(&Event{ev: c}).poll(5 * time.Millisecond)
	require.GreaterOrEqual(t, time.Since(t0), 5*time.Millisecond, "the poll ran out its budget")
	require.Positive(t, c.queries.Load())

	c = &countedEvent{}
	c.finished.Store(true)
	(&Event{ev: c}).poll(time.Minute)
	require.Equal(t, int64(1), c.queries.Load(), "a completed command ends the poll at once")

	c = &countedEvent{}
	go func() {
		time.Sleep(2 * time.Millisecond)
		c.finished.Store(true)
	}()
	t0 = time.Now()
	(&Event{ev: c}).poll(time.Minute)
	require.Less(t, time.Since(t0), 30*time.Second, "the poll ended when the command completed, not at its budget")
}
