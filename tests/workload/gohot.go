// A Go workload for tests/integration/test_images_nobid.sh: about
// SECONDS (argument, default 2) of CPU in hotGoFunction.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func hotGoFunction(n int) uint64 {
	var x uint64
	for i := 0; i < n; i++ {
		x += uint64(i*i) ^ (x >> 3)
	}
	return x
}

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		secs, _ = strconv.ParseFloat(os.Args[1], 64)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var s uint64
	for time.Now().Before(end) {
		s += hotGoFunction(1000000)
	}
	fmt.Fprintln(os.Stderr, s)
}
