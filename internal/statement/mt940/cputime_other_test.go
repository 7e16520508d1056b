//go:build !unix

package mt940

import "time"

// cpuTime is not measured here; the benchmark then reports wall-clock MB/s only.
func cpuTime() time.Duration { return 0 }
