package engine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
)

// Groups runs once per key, in the order keys first appear, with every
// request's index in exactly one group; Scatter puts a group's results
// back, with a *batch.Error's per-element errors or one error for all.
func TestGroupsScatter(t *testing.T) {
	reqs := []string{"a", "b", "a", "c", "b", "a"}
	var keys []string
	got := map[string][]int{}
	Groups(reqs, func(r string) string { return r }, func(k string, idx []int) {
		keys = append(keys, k)
		got[k] = idx
	})
	require.Equal(t, []string{"a", "b", "c"}, keys)
	require.Equal(t, map[string][]int{"a": {0, 2, 5}, "b": {1, 4}, "c": {3}}, got)

	keys = nil
	Groups([]string{"x", "x"}, func(r string) string { return r }, func(k string, idx []int) {
		keys = append(keys, k)
		require.Equal(t, []int{0, 1}, idx)
	})
	require.Equal(t, []string{"x"}, keys)
	Groups(nil, func(r string) string { return r }, func(string, []int) { t.Fatal("a group of no request") })

	out, errs := make([]int, 4), make([]error, 4)
	bad := errors.New("bad element")
	Scatter([]int{1, 3}, []int{10, 30}, &batch.Error{Errs: []error{nil, bad}}, out, errs)
	require.Equal(t, []int{0, 10, 0, 30}, out)
	require.Equal(t, []error{nil, nil, nil, bad}, errs)
	whole := errors.New("the call failed")
	Scatter([]int{0, 2}, nil, whole, out, errs)
	require.Equal(t, []int{0, 10, 0, 30}, out)
	require.Equal(t, []error{whole, nil, whole, bad}, errs)
}
