package batch_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Requests submitted while Close runs are answered or refused, never
// left waiting: a worker that saw an empty intake just before Close must
// not return while a request can still arrive in it.
func TestCloseAnswersRequestsInFlight(t *testing.T) {
	for round := range 300 {
		b := batch.New(batch.Options{MaxDelay: 50 * time.Microsecond}, func(reqs []int) ([]int, error) { return reqs, nil })
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if _, err := b.Do(context.Background(), 1); err != nil {
						return // closed
					}
				}
			}()
		}
		time.Sleep(time.Duration(round%7) * 100 * time.Microsecond)
		b.Close()
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: a request submitted during Close was never answered", round)
		}
	}
}
