//go:build unix

package statementtest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, user and system: on a shared machine it
// measures a benchmark's own work where wall time would also measure the neighbours'.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
