# Benchmarks (bench/README has their method and figures).
