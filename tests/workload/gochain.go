// Call chains through a Go leaf without a frame of its own: main calls
// b three times for each call of c, and each calls hot, a leaf whose
// loop keeps its variables in registers, which Go compiles without a
// frame (no BP pushed).  The frame pointers then lead from hot to main,
// past its caller.
//
//	gochain SECONDS
//
// SECONDS of the process's CPU time, not of the clock: as many samples on
// a loaded machine.
package main

import (
	"os"
	"strconv"
	"syscall"
)

var sink uint64

//go:noinline
func hot(n uint64) uint64 {
	var s uint64
	for i := uint64(0); i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func b() {
	for i := 0; i < 3; i++ {
		sink += hot(2000000)
	}
}

//go:noinline
func c() {
	sink += hot(2000000)
}

// The process's CPU time (user and system, all threads) in seconds.
func cpuNow() float64 {
	var ru syscall.Rusage

	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		os.Exit(1)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		os.Exit(2)
	}
	end := cpuNow() + secs
	for cpuNow() < end {
		b()
		c()
	}
	if sink == 1 {
		os.Exit(1)
	}
}
