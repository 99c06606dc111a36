#!/bin/sh
# The build-id cache (DB/buildid/IMAGEID/FILE): dcpictl epochs --cache lists
# it, dcpictl gc removes the entries no remaining epoch refers to, never
# what a profile refers to, never through a symbolic link, and leaves
# names that are not image ids alone.  A hand-made database: no perf.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkprofile
EV=perf::cpu-clock
old=$(date -u -d '40 days ago' +%Y%m%d%H%M%S)
mid=$(date -u -d '20 days ago' +%Y%m%d%H%M%S)
new=$(date -u +%Y%m%d%H%M%S)
# The old epoch ended 20 days ago, when mid began: gc deletes it.
for e in "$old" "$mid" "$new"; do mkdir -p "$DB/$e/h1/$EV"; done
ln -s "$new" "$DB/current"
"$MK" "$DB/$old/h1/$EV/true.aaaa" aaaa /bin/true || fail "mkprofile failed"
"$MK" "$DB/$new/h1/$EV/true.bbbb" bbbb /bin/true || fail "mkprofile failed"
# Its file name says eeee, its header bbbb: both are kept.
cp "$DB/$new/h1/$EV/true.bbbb" "$DB/$new/h1/$EV/true.eeee"
C=$DB/buildid
mkdir -p "$C/aaaa" "$C/bbbb" "$C/cccc" "$C/eeee" "$C/not-an-id" "$T/outside"
cp /bin/true "$C/aaaa/executable"
cp /bin/true "$C/bbbb/executable"
printf '0 10 hot\n10 20 cold\n' > "$C/cccc/perf-map"
echo x > "$C/eeee/perf-map"
echo keep > "$T/outside/executable"
ln -s "$T/outside" "$C/dddd"
touch -h -d '1 hour ago' "$C"/*
# Written by a flush a moment ago: its profile may not be there yet.
mkdir "$C/ffff" && echo y > "$C/ffff/perf-map"
tb=$(stat -c %s /bin/true)
pm=$(stat -c %s "$C/cccc/perf-map")

out=$(ctl epochs --cache) || fail "epochs --cache failed"
echo "$out" | grep -q "^build-id cache $C: 7 entries, 6 files, " ||
    fail "epochs --cache summary: $out"
echo "$out" | grep -E "^aaaa +1 +$tb +$old/h1/$EV/true.aaaa$" >/dev/null ||
    fail "epochs --cache: aaaa's row: $out"
echo "$out" | grep -E "^cccc +1 +$pm +-$" >/dev/null || fail "epochs --cache: cccc: $out"
out=$(ctl epochs --cache --csv) || fail "epochs --cache --csv failed"
echo "$out" | grep -q "^bbbb,1,$tb,$new/h1/$EV/true.bbbb$" || fail "csv: $out"

# Dry run: the old epoch would go, and with it aaaa; cccc and the link
# dddd are referred to by nothing.
out=$(ctl gc --keep-days 7 --keep-min 1 --dry-run 2>"$T/err") || fail "gc --dry-run failed"
echo "$out" | grep -q "^would delete $old$" || fail "dry run: $out"
echo "$out" | grep -q "^build-id cache: would remove 3 entries, $((tb + pm)) bytes; 4 kept$" ||
    fail "dry run cache: $out"
[ -d "$C/aaaa" ] && [ -d "$DB/$old" ] || fail "a dry run removed something"

out=$(ctl gc --keep-days 7 --keep-min 1 2>"$T/err") || fail "gc failed: $(cat "$T/err")"
echo "$out" | grep -q "^deleted $old$" || fail "gc: $out"
echo "$out" | grep -q "^build-id cache: removed 3 entries, $((tb + pm)) bytes; 4 kept$" ||
    fail "gc cache: $out"
[ ! -e "$C/aaaa" ] && [ ! -e "$C/cccc" ] && [ ! -e "$C/dddd" ] || fail "unreferenced entries left: $(ls "$C")"
[ -f "$C/bbbb/executable" ] && [ -f "$C/eeee/perf-map" ] || fail "a referenced entry was removed"
[ -f "$C/ffff/perf-map" ] || fail "a fresh entry was removed"
[ "$(cat "$T/outside/executable")" = keep ] || fail "gc followed a symbolic link out of the cache"
[ -d "$C/not-an-id" ] || fail "an entry that is not an image id was removed"
grep -q "$C/not-an-id: not a build-id cache entry" "$T/err" || fail "no warning: $(cat "$T/err")"
[ -z "$(ls -A "$C" | grep '^\.gc\.')" ] || fail "hidden leftovers: $(ls -A "$C")"

# Nothing more to remove.
out=$(ctl gc --keep-days 7 --keep-min 1 2>/dev/null) || fail "second gc failed"
echo "$out" | grep -q "^build-id cache: removed 0 entries, 0 bytes; 4 kept$" || fail "second gc: $out"
echo "build-id cache gc and listing: ok"
