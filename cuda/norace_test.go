//go:build !race

package cuda

const raceDetector = false
