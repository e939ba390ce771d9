package batch_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gpucrypto/gpucrypto/batch"
)

// A batch call's errors are per element: the elements that succeeded have
// valid results, and errors.Is finds an element's error.
func ExampleCollect() {
	inputs := []string{"1", "two", "3"}
	out := make([]int, len(inputs))
	errs := make([]error, len(inputs))
	for i, s := range inputs {
		out[i], errs[i] = strconv.Atoi(s)
	}
	err := batch.Collect(errs)
	var be *batch.Error
	if errors.As(err, &be) {
		fmt.Println(be.Failed(), "failed:", out[0], be.Errs[1] != nil, out[2])
	}
	fmt.Println(errors.Is(err, strconv.ErrSyntax))
	// Output:
	// 1 failed: 1 true 3
	// true
}

// A Batcher gathers single requests from many goroutines into batches for
// its workers (one per device, say); a lone request does not wait.
func ExampleNew() {
	square := func(reqs []int) ([]int, error) {
		out := make([]int, len(reqs))
		for i, r := range reqs {
			out[i] = r * r
		}
		return out, nil
	}
	b := batch.New(batch.Options{}, square)
	defer b.Close()
	v, err := b.Do(context.Background(), 12)
	fmt.Println(v, err)
	// Output: 144 <nil>
}
