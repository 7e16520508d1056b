package match

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	runtime.GOMAXPROCS(1)
	for _, sc := range benchScales {
		in := benchCase(sc.bank, sc.refs)
		norms := make([]string, len(in.expected))
		for i, e := range in.expected {
			norms[i] = string(normalize(nil, e.Reference))
		}
		runtime.GC()
		best, bestF := time.Hour, time.Hour
		for range 5 {
			c0, w0 := cpuNow(), time.Now()
			Reconcile(in.expected, in.bank)
			c := cpuNow() - c0
			_ = w0
			best = min(best, c)
			f := finderOf(norms...)
			c0 = cpuNow()
			for i := range in.bank {
				f.find(in.bank[i].Text)
			}
			bestF = min(bestF, cpuNow()-c0)
		}
		t.Logf("%s: reconcile cpu %v, find cpu %v", sc.name, best, bestF)
	}
}
