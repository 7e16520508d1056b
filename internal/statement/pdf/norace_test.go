//go:build !race

package pdf

// raceSlowdown stretches the hostile tests' time bounds under the race detector.
const raceSlowdown = 1
