#!/bin/sh
# Call chains against the flat path on bench/sample_path (the aim: at
# most twice the flat per-sample cost at depth 16), as root:
#   sh bench/chain_cost.sh BUILDDIR [ROUNDS] [OTHER_BUILDDIR]
# Each round runs sample_path -n 1024000 -g 2 flat, with -G 16, then the
# same two with skewed draws (-z 1.3), interleaved, for BUILDDIR and, if
# given, OTHER_BUILDDIR (a build of another commit) in turn; ROUNDS
# (default 11) rounds.  Prints ns a sample, min - max (median), and the
# ratio -G 16 / flat per round, min - max (median): a round's two runs
# share the host's load of the moment, so the per-round ratio is the
# figure to quote on a shared machine.
set -u
B=${1:?usage: chain_cost.sh BUILDDIR [ROUNDS] [OTHER_BUILDDIR]}
R=${2:-11}
O=${3:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/chain_cost.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
run() {	# BUILD TAG ARGS...
	b=$1 tag=$2; shift 2
	ns=$("$b/bench/sample_path" -n 1024000 -g 2 "$@" 2>&1 |
	    sed -n 's/.* \([0-9.]*\) ns\/sample.*/\1/p')
	[ -n "$ns" ] || { echo "chain_cost: sample_path $* failed in $b" >&2; exit 1; }
	echo "$ns" >>"$T/$tag"
}
i=0
while [ "$i" -lt "$R" ]; do
	for b in "$B" $O; do
		k=$(echo "$b" | cksum | cut -d' ' -f1)
		run "$b" "$k.flat"
		run "$b" "$k.g16" -G 16
		run "$b" "$k.zflat" -z 1.3
		run "$b" "$k.zg16" -z 1.3 -G 16
	done
	i=$((i + 1))
done
# min - max (median) of a file of numbers
MED='{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2;'
stats() { sort -n "$1" | awk "$MED"' printf "%.1f - %.1f (%.1f)", v[1], v[NR], m }'; }
ratios() { paste "$1" "$2" | awk '{ print $2 / $1 }' | sort -n |
    awk "$MED"' printf "%.2f - %.2f (%.2f)", v[1], v[NR], m }'; }
echo "sample_path -n 1024000 -g 2, $R rounds, ns a sample, min - max (median)"
for b in "$B" $O; do
	k=$(echo "$b" | cksum | cut -d' ' -f1)
	echo "$b"
	echo "  uniform  flat $(stats "$T/$k.flat")  -G 16 $(stats "$T/$k.g16")"
	echo "           -G 16 / flat per round $(ratios "$T/$k.flat" "$T/$k.g16")"
	echo "  skewed   flat $(stats "$T/$k.zflat")  -G 16 $(stats "$T/$k.zg16")"
	echo "           -G 16 / flat per round $(ratios "$T/$k.zflat" "$T/$k.zg16")"
done
