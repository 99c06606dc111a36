// Call chains through a Go leaf without a frame of its own: main calls
// b three times for each call of c, and each calls hot, a leaf whose
// loop keeps its variables in registers, which Go compiles without a
// frame (no BP pushed).  The frame pointers then lead from hot to main,
// past its caller.
//
//	gochain SECONDS
package main

import (
	"os"
	"strconv"
	"time"
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

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for time.Now().Before(end) {
		b()
		c()
	}
	if sink == 1 {
		os.Exit(1)
	}
}
