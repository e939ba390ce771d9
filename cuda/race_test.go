//go:build race

package cuda

// raceDetector is whether the race detector is on: it changes what escapes
// to the heap, so allocation counts mean nothing under it.
const raceDetector = true
