package main

import (
	"slices"
	"strings"

	"github.com/gpucrypto/gpucrypto/internal/registry"
)

// The CLI's support of each algorithm is tables that the algorithm's own
// files add their entries to: the groups and commands of `gpucrypto
// bench` (benchGroups, benchCommands), the operations of `gpucrypto
// burnin` (burninOps, burninOpPatterns) and of its soak (soakOperations),
// and those of `gpucrypto bench server` (serverOps). Each file adds its
// entries with a package-level
//
//	var _ = burninOps.add(burninOp{name: "x25519", algorithm: "ecdh", ...})
//
// and the shared code only goes over the tables, so that an algorithm
// new to the CLI is one file of its own, NAME.go (rsa.go, mlkem.go, ...:
// its bench group, its Server rows, its burn-in and soak operations, in
// that order), and no change elsewhere.
// TestTablesAreConsistent keeps the tables in step with each other and
// with internal/registry.

// table is one of those tables: entries of type T, each of an algorithm
// of internal/registry (or of none: bench server and bench tls).
type table[T any] struct {
	algorithm func(T) string
	entries   []T
}

// newTable is an empty table whose entries' algorithm is algorithm's.
func newTable[T any](algorithm func(T) string) *table[T] {
	return &table[T]{algorithm: algorithm}
}

// add adds entries to t, in this order; its result is for `var _ =`.
func (t *table[T]) add(entries ...T) bool {
	t.entries = append(t.entries, entries...)
	return true
}

// all are t's entries in the order of their algorithms in registry.All
// (the order of every list and report of the CLI), those of no algorithm
// last; an algorithm's own in the order they were added (a file's in the
// order of its add, files in the order of their names, which is the
// order Go initializes them in).
func (t *table[T]) all() []T {
	out := slices.Clone(t.entries)
	slices.SortStableFunc(out, func(a, b T) int { return algorithmOrder(t.algorithm(a)) - algorithmOrder(t.algorithm(b)) })
	return out
}

// algorithmOrder is the place of the algorithm name in registry.All, or
// len(registry.All) for none.
func algorithmOrder(name string) int {
	for i, a := range registry.All {
		if a.Name == name {
			return i
		}
	}
	return len(registry.All)
}

// wordList is words as a sentence lists them: "a", "a and b", "a, b and
// c" (conjunction "and" or "or").
func wordList(words []string, conjunction string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}
