//go:build race

package batch

// raceEnabled: the race detector is on (it makes sync.Pool drop a part of
// what is put in it, at random).
const raceEnabled = true
