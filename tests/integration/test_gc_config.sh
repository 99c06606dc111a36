#!/bin/sh
# dcpictl gc takes its retention from dcpid.conf (keep-days, keep-min) when
# the command line does not give it, and the command line wins.
. "$top_srcdir/tests/integration/lib.sh"

mkdir -p "$DB"
# Epochs 40, 20, 10 and 5 days old, and today's (current).
for d in 40 20 10 5 0; do
	mkdir "$DB/$(date -u -d "$d days ago" +%Y%m%d%H%M%S)"
done
today=$(ls "$DB" | tail -n 1)
ln -s "$today" "$DB/current"
conf=$T/dcpid.conf
printf 'keep-days = 15\nkeep-min = 1\n' > "$conf"

# From the file: epochs that ended over 15 days ago are the 40-day one
# (ended when the 20-day one began) only.
out=$(ctl gc --config "$conf" --dry-run) || fail "gc --config failed"
[ "$(echo "$out" | grep -c 'would delete')" = 1 ] || fail "keep-days 15 from the file: $out"
# The command line overrides the file.
out=$(ctl gc --config "$conf" --keep-days 7 --dry-run) || fail "gc failed"
[ "$(echo "$out" | grep -c 'would delete')" = 2 ] || fail "--keep-days 7 over the file: $out"
# keep-min from the file protects the newest epochs.
printf 'keep-days = 0\nkeep-min = 3\n' > "$conf"
out=$(ctl gc --config "$conf" --dry-run) || fail "gc failed"
[ "$(echo "$out" | grep -c 'would delete')" = 2 ] || fail "keep-min 3 from the file: $out"
# A bad file is reported with its line, and nothing is deleted.
printf 'keep-days = soon\n' > "$conf"
if ctl gc --config "$conf" 2>"$T/err"; then fail "gc accepted a bad config"; fi
grep -q "dcpid.conf:1:" "$T/err" || fail "no line number in: $(cat "$T/err")"
[ "$(ls "$DB" | wc -l)" = 6 ] || fail "a failed gc deleted something"
echo "gc retention from dcpid.conf: ok"
