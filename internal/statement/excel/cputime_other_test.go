//go:build !unix

package excel

import "time"

// cpuTime is not measured here; the benchmarks then report wall-clock rates only.
func cpuTime() time.Duration { return 0 }
