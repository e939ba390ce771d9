package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The checks of flag values: each error names the flag, the value given
// and what the flag wants, so that a mistyped command says what to fix
// before it touches a device.

// flagInts parses the comma-separated list of whole numbers of flag
// --name, each at least least.
func flagInts(name, s string, least int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < least {
			return nil, fmt.Errorf("--%s %q: %q is not a whole number of %d or more (want a comma-separated list of them)", name, s, f, least)
		}
		out = append(out, v)
	}
	return out, nil
}

// positiveInts parses the comma-separated list of flag --name: counts or
// sizes, each at least 1.
func positiveInts(name, s string) ([]int, error) { return flagInts(name, s, 1) }

// atLeast checks an integer flag --name against its least value.
func atLeast[T int | int64](name string, v, least T) error {
	if v < least {
		return fmt.Errorf("--%s %d: want %d or more", name, v, least)
	}
	return nil
}

// positiveSeconds checks a time in seconds of flag --name: above 0 and
// finite, and returns it as a duration.
func positiveSeconds(name string, v float64) (time.Duration, error) {
	if !(v > 0) || math.IsInf(v, 0) || v*float64(time.Second) > math.MaxInt64 {
		return 0, fmt.Errorf("--%s %v: want a time in seconds above 0", name, v)
	}
	return time.Duration(v * float64(time.Second)), nil
}

// nonNegativeSeconds checks a time in seconds of flag --name that may be
// 0, and returns it as a duration.
func nonNegativeSeconds(name string, v float64) (time.Duration, error) {
	if v == 0 {
		return 0, nil
	}
	return positiveSeconds(name, v)
}

// nonNegativeDuration checks a duration flag --name that may be 0.
func nonNegativeDuration(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--%s %v: want 0 or more", name, d)
	}
	return nil
}

// flagWords parses the comma-separated list of flag --name, each word one
// of have.
func flagWords(name, s string, have []string) ([]string, error) {
	words := strings.Split(s, ",")
	for _, w := range words {
		if !slices.Contains(have, w) {
			return nil, fmt.Errorf("--%s %q: unknown value %q (have %s)", name, s, w, strings.Join(have, ", "))
		}
	}
	return words, nil
}

// flagWord checks that flag --name is one of have.
func flagWord(name, s string, have []string) error {
	if !slices.Contains(have, s) {
		return fmt.Errorf("--%s %q: unknown value (have %s)", name, s, strings.Join(have, ", "))
	}
	return nil
}
