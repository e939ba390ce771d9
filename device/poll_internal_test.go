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

// TestPollBacksOff pins the back-off of Event.poll: polling a command that
// does not complete for its whole budget makes at most about budget /
// pollGap queries (each a driver call), not one per yield; a command that
// has completed ends the poll at its next query.
func TestPollBacksOff(t *testing.T) {
	const budget = 20 * time.Millisecond
	c := &countedEvent{}
	(&Event{ev: c}).poll(budget)
	// budget / pollGap = 1,000 once the gaps reach pollGap, plus the
	// first gaps' ramp (an eighth of the time so far: a few dozen).
	require.LessOrEqual(t, c.queries.Load(), int64(budget/pollGap)+100)
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
