#!/bin/sh
# The ELF executables and shared objects of this host, one path a line,
# symbolic links followed once, sorted: under /usr/lib/x86_64-linux-gnu,
# /usr/bin, /usr/sbin and the JVMs (bench/unwind_fleet.sh,
# bench/unwind_mem.sh).
for f in /usr/lib/x86_64-linux-gnu/*.so* /usr/lib/x86_64-linux-gnu/*/*.so* \
    /usr/bin/* /usr/sbin/* /usr/lib/jvm/*/lib/*.so /usr/lib/jvm/*/lib/server/*.so; do
	[ -f "$f" ] || continue
	r=$(readlink -f "$f")
	[ "$(head -c 4 "$r" 2>/dev/null | tail -c 3)" = ELF ] && echo "$r"
done | sort -u
