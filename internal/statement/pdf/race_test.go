//go:build race

package pdf

// raceSlowdown stretches the hostile tests' time bounds under the race detector, which makes
// scanning a quarter gigabyte of decompressed content some ten times slower.
const raceSlowdown = 10
