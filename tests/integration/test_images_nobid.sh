#!/bin/sh
# Images without a GNU build-id: a C program linked with --build-id=none and
# a Go program (Go writes only its own .note.go.buildid).  Both get a content
# hash as id, written as plain hex with "idkind content"; the flush succeeds
# (flush-errors 0) and prof names each hot function with >= 90% of its
# image's samples.  The same Go program stripped (-ldflags='-s -w', as Go
# programs in containers are), also as a PIE: no .symtab, so prof names
# its functions from Go's own table, .gopclntab, and list its source lines
# from the same table's line tables.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v go >/dev/null || skip "no go compiler (Debian package golang-go)"

cc_work nobid "$top_srcdir/tests/workload/hot.c" -Wl,--build-id=none
readelf -n "$T/nobid" | grep -q 'Build ID' && fail "nobid has a build-id"
mkdir -p "$T/gohot"
cp "$top_srcdir/tests/workload/gohot.go" "$T/gohot/main.go"
(cd "$T/gohot" && GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off \
    go build -o "$T/gohot_bin" main.go) || fail "go build failed"
readelf -n "$T/gohot_bin" | grep -q 'GNU_BUILD_ID' && fail "the Go program has a GNU build-id"
(cd "$T/gohot" && GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off \
    go build -ldflags='-s -w' -o "$T/gohot_strip" main.go &&
    GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off \
    go build -buildmode=pie -ldflags='-s -w' -o "$T/gohot_pie" main.go) ||
    fail "go build (stripped) failed"
for f in gohot_strip gohot_pie; do
	readelf -SW "$T/$f" | grep -q ' \.symtab ' && fail "$f has a .symtab"
	readelf -SW "$T/$f" | grep -q 'gopclntab' || fail "$f has no .gopclntab"
done

start_dcpid -e perf::cpu-clock
"$T/nobid" 2 & p1=$!
"$T/gohot_bin" 2 & p2=$!
wait $p1 || fail "nobid failed"
wait $p2 || fail "gohot failed"
"$T/gohot_strip" 1 & p1=$!
"$T/gohot_pie" 1 & p2=$!
wait $p1 || fail "gohot_strip failed"
wait $p2 || fail "gohot_pie failed"
ctl flush || fail "dcpictl flush failed: $(ctl status | grep flush)"
ctl status >"$T/status"
grep -q '^flush-errors *0$' "$T/status" || fail "flush errors: $(grep flush "$T/status")"

e=$(current_epoch)
assert_hot "$e" nobid "$T/nobid" dcpi_workload_hot 200
for name in nobid gohot_bin; do
	f=$(profile_file "$e" $name)
	[ -n "$f" ] || fail "no profile of $name"
	grep -q '^idkind content$' "$f" || fail "$f: no 'idkind content' line"
	id=$(sed -n 's/^image //p' "$f")
	echo "$id" | grep -Eq '^[0-9a-f]{16}$' || fail "$f: image id '$id' is not 16 hex digits"
done

# prof names the hot functions, each with >= 90% of its image.
check_top() {	# IMAGE PROCEDURE
	ctl prof --image "$1" -n 1 --csv >"$T/prof.csv" || fail "prof --image $1 failed"
	row=$(sed -n 2p "$T/prof.csv")
	echo "prof --image $1: $row"
	echo "$row" | grep -q ",$2," || fail "prof --image $1: top row is not $2: $row"
	pct=$(echo "$row" | cut -d, -f2 | cut -d. -f1)
	[ "$pct" -ge 90 ] || fail "prof --image $1: $2 has only $pct%"
}
check_top nobid dcpi_workload_hot
check_top gohot_bin main.hotGoFunction
check_top gohot_strip main.hotGoFunction
check_top gohot_pie main.hotGoFunction
# Source lines: the stripped programs have no DWARF, only Go's own line
# tables; list shows the same FILE:LINE lines as for the program with
# DWARF (the same source, the same compiler), and the hot loop's line.
srclines() {	# IMAGE: the FILE:LINE lines of list, the directory left out
	ctl list main.hotGoFunction --image "$1" >"$T/list.$1" || fail "list --image $1 failed"
	grep -o '[^/ ]*\.go:[0-9][0-9]*' "$T/list.$1" | sort -u
}
srclines gohot_bin >"$T/lines.dwarf"
loop=$(grep -n 'x += uint64(i\*i)' "$top_srcdir/tests/workload/gohot.go" | cut -d: -f1)
echo "list main.hotGoFunction (DWARF): $(tr '\n' ' ' <"$T/lines.dwarf")"
grep -qx "main.go:$loop" "$T/lines.dwarf" || fail "list of gohot_bin: no main.go:$loop: $(cat "$T/list.gohot_bin")"
for f in gohot_strip gohot_pie; do
	srclines $f >"$T/lines.$f"
	cmp -s "$T/lines.dwarf" "$T/lines.$f" ||
	    fail "list --image $f: lines $(tr '\n' ' ' <"$T/lines.$f"), not those of DWARF"
done
assert_db_valid
stop_dcpid
