#!/bin/sh
# Stripped images, as Debian ships them: no .symtab, no debug file.  Their
# exported functions have .dynsym names; their static ones only frame
# information (.eh_frame), from which prof names each function sub_ADDR
# (its ELF address in hex) over the FDE's extent, instead of one
# "[unknown]" per image.
#  - our hot workload, stripped: its hot static function is
#    sub_<its address in the unstripped copy>, with >= 90% of the image's
#    samples, and list disassembles it by that name;
#  - Debian's own xz: liblzma's match finder and encoder are static; the
#    image's top procedure is a sub_ whose extent is an FDE's of
#    readelf --debug-dump=frames, and "[unknown]" keeps under 5% of the
#    image's samples.
. "$top_srcdir/tests/integration/lib.sh"
require_perf
command -v strip >/dev/null || skip "no strip (binutils)"
command -v xz >/dev/null || fail "no xz (Debian package xz-utils)"

build_hot stripme
cp "$T/stripme" "$T/stripme.full"
strip --strip-all "$T/stripme" || fail "strip failed"
readelf -SW "$T/stripme" | grep -q ' \.symtab ' && fail "stripme has a .symtab"
addr=$(nm "$T/stripme.full" | awk '$3 == "dcpi_workload_hot" { print $1 }' | sed 's/^0*//')
[ -n "$addr" ] || fail "no dcpi_workload_hot in the unstripped copy"
size=$(nm -S "$T/stripme.full" | awk '$4 == "dcpi_workload_hot" { print $2 }' | sed 's/^0*//')

lzma=$(ldd "$(command -v xz)" | awk '$1 ~ /^liblzma/ { print $3 }')
[ -n "$lzma" ] || fail "xz is not linked with liblzma"
lzma=$(readlink -f "$lzma")
readelf -SW "$lzma" | grep -q ' \.symtab ' && skip "$lzma has a .symtab here (not Debian's stripped build)"
# Three MB of programs: about 2 s of CPU at xz -9e.
cat /usr/bin/* 2>/dev/null | head -c 3000000 >"$T/input"

start_dcpid -e perf::cpu-clock
"$T/stripme" 2 || fail "stripme failed"
xz -9e -T1 -c "$T/input" >/dev/null || fail "xz failed"
ctl flush || fail "dcpictl flush failed"
stop_dcpid

# The workload: its hot function by its address.
ctl prof --image stripme -n 1 --csv >"$T/prof.csv" || fail "prof --image stripme failed"
row=$(sed -n 2p "$T/prof.csv")
echo "prof --image stripme: $row"
echo "$row" | grep -q ",sub_$addr,stripme\$" || fail "top row is not sub_$addr: $row"
pct=$(echo "$row" | cut -d, -f2 | cut -d. -f1)
[ "$pct" -ge 90 ] || fail "sub_$addr has only $pct% of stripme's samples"
ctl list "sub_$addr" --image stripme >"$T/list" || fail "list sub_$addr failed: $(cat "$T/list")"
head -2 "$T/list"
grep -q "sub_$addr in stripme.*$((0x$size)) bytes at 0x$addr" "$T/list" ||
    fail "list does not give sub_$addr's extent ($((0x$size)) bytes): $(head -1 "$T/list")"

# liblzma: the top procedure is a function of its frame information.
name=$(basename "$lzma")
ctl prof --image "$name" --csv >"$T/lzma.csv" || fail "prof --image $name failed"
head -4 "$T/lzma.csv"
top=$(sed -n 2p "$T/lzma.csv" | cut -d, -f4)
echo "$top" | grep -Eq '^sub_[0-9a-f]+$' || fail "$name: top procedure is $top, not a sub_"
total=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$T/lzma.csv")
unk=$(awk -F, 'NR > 1 && $4 == "[unknown]" { s += $1 } END { print s + 0 }' "$T/lzma.csv")
echo "$name: $unk of $total samples [unknown]"
[ "$total" -ge 200 ] || fail "$name: only $total samples"
[ $((unk * 100)) -lt $((total * 5)) ] || fail "$name: $unk of $total samples still [unknown]"
start=${top#sub_}
ctl list "$top" --image "$name" >"$T/list" || fail "list $top failed"
bytes=$(sed -n '1s/.*, \([0-9]*\) bytes at .*/\1/p' "$T/list")
end=$(printf '%x' $((0x$start + bytes)))
readelf --debug-dump=frames "$lzma" 2>/dev/null |
    grep -Eq "FDE .* pc=0*$start\\.\\.0*$end\$" ||
    fail "$name: $top ($bytes bytes) is not the extent of an FDE of readelf's"
echo "$top: 0x$start..0x$end, an FDE's extent"
