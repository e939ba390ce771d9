package device

import (
	"runtime"
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

// TestPollBacksOff pins the back-off of Event.poll: polling a command that
// does not complete for its whole budget makes one query per pollYields
// yields once the gaps have grown, not one per yield; a command that has
// completed ends the poll at its next query.
func TestPollBacksOff(t *testing.T) {
	const budget = 20 * time.Millisecond
	c := &countedEvent{}
	yieldsBefore := countYields(budget)
	(&Event{ev: c}).poll(budget)
	// The yields a budget holds, as counted just before, over pollYields,
	// with room for a host that yields twice as fast now and for the
	// gaps' first doublings.
	require.LessOrEqual(t, c.queries.Load(), 2*yieldsBefore/pollYields+20)
	require.GreaterOrEqual(t, c.queries.Load(), int64(2), "the poll queried more than once")

	c = &countedEvent{}
	c.finished.Store(true)
	(&Event{ev: c}).poll(budget)
	require.Equal(t, int64(1), c.queries.Load(), "a completed command ends the poll at once")

	c = &countedEvent{}
	go func() {
		time.Sleep(2 * time.Millisecond)
		c.finished.Store(true)
	}()
	t0 := time.Now()
	(&Event{ev: c}).poll(time.Minute)
	require.Less(t, time.Since(t0), 30*time.Second, "the poll ended when the command completed, not at its budget")
}

// countYields is how many times this goroutine yields in d, reading the
// clock once per pollYields yields as a poll does.
func countYields(d time.Duration) int64 {
	var n int64
	for deadline := time.Now().Add(d); time.Now().Before(deadline); n += pollYields {
		for range pollYields {
			runtime.Gosched()
		}
	}
	return n
}
