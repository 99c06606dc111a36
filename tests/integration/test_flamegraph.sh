#!/bin/sh
# dcpictl flamegraph on a database of stacks of one program that mkstacks
# writes: the SVG is well-formed XML whose frame widths are the shares of
# the folded stacks (b three times c), a C++ name's <, > and & escaped,
# the usage and selection errors; then headless Chromium loads it without
# console errors, the script zooms into a frame named in the URL's
# fragment (#zoom=b: b at the full width, its ancestors faded, c hidden)
# and searches (#search=...), and a screenshot is kept in the build tree
# (tests/flamegraph.png).  Chromium is README's test package: missing, the
# test skips, or fails under DCPI_REQUIRE_PERF=1.  No perf needed.
. "$top_srcdir/tests/integration/lib.sh"

MK=$top_builddir/tests/mkstacks
MKP=$top_builddir/tests/mklabelled
command -v nm >/dev/null || fail "nm is not installed (README's test packages)"
command -v python3 >/dev/null || fail "python3 is not installed"
# A template instance, whose demangled name "void tpl<int>(int&)" holds
# the characters XML reserves.
cat >"$T/stk.cc" <<'END'
#include <cstdio>
volatile unsigned long sink;
template <typename T> void tpl(T &x) { for (int i = 0; i < 1000; i++) sink += x; }
extern "C" {
void hot(void) { for (int i = 0; i < 1000; i++) sink += i; }
void b(void) { hot(); puts("b"); }
void c(void) { hot(); puts("c"); }
void a(int x) { if (x > 2) tpl(x); else if (x) b(); else c(); puts("a"); }
int main(int argc, char **argv) { (void)argv; a(argc - 1); return 0; }
}
END
${CXX:-c++} -O1 -g -fno-inline -fno-omit-frame-pointer -o "$T/stk" "$T/stk.cc" ||
	fail "cannot compile $T/stk.cc"
W=$T/stk
addr() { nm "$W" | awk -v f="$1" '$3 == f && ($2 == "T" || $2 == "t" || $2 == "W") { print $1 }'; }
MAIN=$(addr main) A=$(addr a) B=$(addr b) C=$(addr c) HOT=$(addr hot) TPL=$(addr _Z3tplIiEvRT_)
[ -n "$MAIN" ] && [ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$HOT" ] && [ -n "$TPL" ] ||
	fail "nm finds no main, a, b, c, hot or tpl<int> in $W"

# Epoch 1: main;a;b;hot 300, main;a;c;hot 100, main;a;tpl<int> 40.
# Epoch 2: profiles but no stack files.
E1=20260301000000 E2=20260302000000
"$MK" "$DB" $E1 h1 - "$W" "$HOT,$B,$A,$MAIN=300" "$HOT,$C,$A,$MAIN=100" "$TPL,$A,$MAIN=40" ||
	fail "mkstacks $E1"
"$MKP" "$DB" $E2 h1 - "$W" "$HOT=10" || fail "mklabelled $E2"
ctl stacks --epoch $E1 | grep -qx 'main;a;void tpl<int>(int&) 40' ||
	fail "stacks: no template frame: $(ctl stacks --epoch $E1)"

SVG=$T/flame.svg
ctl flamegraph --epoch $E1 -o "$SVG" --title 'epoch <1> & co' --width 1000 ||
	fail "flamegraph failed"
python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$SVG" ||
	fail "flamegraph: not well-formed XML: $(head -c 300 "$SVG")"
# The frames by their titles: widths are shares of the samples, the root
# at the bottom (the greatest y), each callee a row above its caller.
python3 - "$SVG" <<'END' || fail "flamegraph: the frames are wrong"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.get("width") == "1000", root.attrib
assert root.find(NS + "text[@id='title']").text == "epoch <1> & co"
assert root.find(NS + "script") is not None
frames = {}
for g in root.find(NS + "g[@id='frames']").findall(NS + "g"):
    t = g.find(NS + "title").text
    r = g.find(NS + "rect")
    frames.setdefault(t, []).append((float(r.get("x")), float(r.get("y")), float(r.get("width"))))
print("flamegraph frames: " + ", ".join(sorted(frames)))
def one(t):
    assert t in frames and len(frames[t]) == 1, (t, sorted(frames))
    return frames[t][0]
al, main, a = one("all (440 samples, 100.00%)"), one("main (440 samples, 100.00%)"), one("a (440 samples, 100.00%)")
b, c = one("b (300 samples, 68.18%)"), one("c (100 samples, 22.73%)")
tpl = one("void tpl<int>(int&) (40 samples, 9.09%)")
hot = frames["hot (300 samples, 68.18%)"] + frames["hot (100 samples, 22.73%)"]
assert abs(al[2] - 980) < 0.2 and al[0] == 10, al
assert abs(b[2] - 3 * c[2]) < 0.2, (b, c)
assert abs(b[2] + c[2] + tpl[2] - a[2]) < 0.2, (a, b, c, tpl)
assert al[1] > main[1] > a[1] > b[1] == c[1] == tpl[1] > hot[0][1] == hot[1][1], (al, main, a, b, hot)
# Children in name order, b's hot above b, c's above c.
assert b[0] < c[0] < tpl[0], (b, c, tpl)
assert sorted(h[0] for h in hot) == [b[0], c[0]], (hot, b, c)
# A label fits its frame: whole, or cut with "..".
labels = {g.find(NS + "title").text.split(" (")[0]: g.find(NS + "text").text
          for g in root.find(NS + "g[@id='frames']").findall(NS + "g")}
assert labels["b"] == "b" and labels["void tpl<int>(int&)"].endswith(".."), labels
END
grep -q 'void tpl&lt;int&gt;(int&amp;) (40 samples' "$SVG" ||
	fail "flamegraph: the template's name is not escaped: $(grep -o '.\{20\}tpl.\{30\}' "$SVG")"
# Colours by the name's hash: the two hot frames alike, and the file the
# same byte for byte when drawn again.
[ "$(grep -o 'hot ([^<]*</title><rect [^>]*fill="[^"]*"' "$SVG" | sed 's/.*fill=//' | sort -u | wc -l)" = 1 ] ||
	fail "flamegraph: hot's frames differ in colour"
ctl flamegraph --epoch $E1 -o "$T/again.svg" --title 'epoch <1> & co' --width 1000 &&
	cmp -s "$SVG" "$T/again.svg" || fail "flamegraph: not deterministic"
# - is standard output; no stray temporary files beside the output.
ctl flamegraph --epoch $E1 -o - --title 'epoch <1> & co' --width 1000 | cmp -s - "$SVG" ||
	fail "flamegraph -o -: not the file's bytes"
[ "$(ls "$T" | grep -c 'svg')" = 2 ] || fail "flamegraph left files: $(ls "$T")"
# The default title names the event.
ctl flamegraph --epoch $E1 -o "$T/def.svg" && grep -q '>Flame Graph: perf::cpu-clock</text>' "$T/def.svg" ||
	fail "flamegraph: default title: $(grep -o 'id="title"[^<]*' "$T/def.svg")"

# Errors: stacks' for an epoch without stack files, and the file left
# alone; the usage errors.
echo keep >"$T/old.svg"
ctl flamegraph --epoch $E2 -o "$T/old.svg" 2>"$T/err"; [ $? = 1 ] ||
	fail "flamegraph of an epoch without stacks: not exit status 1"
grep -q "^dcpictl: flamegraph: no call chains in $DB/$E2: dcpid was not run with -g" "$T/err" ||
	fail "flamegraph without stack files: $(cat "$T/err")"
[ "$(cat "$T/old.svg")" = keep ] || fail "flamegraph without stacks replaced the file"
ctl flamegraph --epoch $E1 2>"$T/err"; [ $? = 2 ] || fail "flamegraph without -o: not a usage error"
grep -q "^dcpictl: flamegraph: no output file" "$T/err" || fail "flamegraph without -o: $(cat "$T/err")"
ctl flamegraph --epoch $E1 -o "$T/x.svg" --width 10 2>"$T/err"; [ $? = 2 ] ||
	fail "flamegraph --width 10: not a usage error"
ctl flamegraph --epoch $E1 -o "$T/nodir/x.svg" 2>"$T/err"; [ $? = 1 ] ||
	fail "flamegraph into a missing directory: not exit status 1"
grep -q "$T/nodir/x.svg" "$T/err" || fail "flamegraph into a missing directory: $(cat "$T/err")"
echo "errors: $(head -c 200 "$T/err")"

# The script, in Chromium.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (README's test packages)"
chrome() {
	# A profile of its own, and nothing but the file loaded.
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	    --user-data-dir="$T/chrome" --enable-logging=stderr --v=0 \
	    --virtual-time-budget=2000 "$@"
}
for view in '' '#zoom=b' '#search=^(b|c)$'; do
	chrome --dump-dom "file://$SVG$view" >"$T/dom.svg" 2>"$T/chrome.err" ||
		fail "chromium failed on $SVG$view: $(tail -5 "$T/chrome.err")"
	grep -E 'Uncaught|:CONSOLE' "$T/chrome.err" &&
		fail "flamegraph$view: console errors in chromium"
	case $view in
	'') python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' \
	    "$T/dom.svg" || fail "chromium's DOM of the SVG: $(head -c 300 "$T/dom.svg")"
	    cp "$T/dom.svg" "$T/dom0.svg";;
	'#zoom=b') cp "$T/dom.svg" "$T/dom-zoom.svg";;
	*) cp "$T/dom.svg" "$T/dom-search.svg";;
	esac
done
python3 - "$T/dom0.svg" "$T/dom-zoom.svg" "$T/dom-search.svg" <<'END' || fail "flamegraph: the script did not zoom or search"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
def frames(path):
    root = ET.parse(path).getroot()
    out = {}
    for g in root.find(NS + "g[@id='frames']").findall(NS + "g"):
        r = g.find(NS + "rect")
        out.setdefault(g.find(NS + "title").text.split(" (")[0], []).append(
            (float(r.get("x")), float(r.get("width")), g.get("class"), r.get("fill"), g.find(NS + "text").text))
    return root, out
root, f = frames(sys.argv[1])
assert f["b"][0][2] is None and abs(f["b"][0][1] - 980 * 300 / 440) < 0.1, f["b"]
# Zoomed into b: b and its hot fill the width, the ancestors fade, c and
# its hot are hidden; the "Reset Zoom" control shows.
root, f = frames(sys.argv[2])
b, = f["b"]
assert b[0] == 10 and b[1] == 980 and b[2] is None and b[4] == "b", b
hots = sorted(f["hot"], key=lambda h: str(h[2]))	# None, then "hide"
assert hots[0][:3] == (10, 980, None) and hots[1][2] == "hide", f["hot"]
for n in ("all", "main", "a"):
    assert f[n][0][1] == 980 and f[n][0][2] == "parent", (n, f[n])
assert f["c"][0][2] == "hide" and f["void tpl<int>(int&)"][0][2] == "hide", f
assert root.find(NS + "text[@id='unzoom']").get("class") in (None, ""), root.find(NS + "text[@id='unzoom']").attrib
print("zoomed into b: b %s, hot %s" % (b[:2], [h[:3] for h in f["hot"]]))
# Searched for b or c: those two magenta, 90.91% matched.
root, f = frames(sys.argv[3])
assert f["b"][0][3] == f["c"][0][3] == "rgb(230,0,230)" != f["a"][0][3], f
assert root.find(NS + "text[@id='matched']").text == "Matched: 90.91%", root.find(NS + "text[@id='matched']").text
assert root.find(NS + "text[@id='search']").text == "Reset Search"
END
# A screenshot, kept in the build tree for whoever looks at a failure (or
# a change to the drawing).
PNG=$top_builddir/tests/flamegraph.png
rm -f "$PNG"
chrome --screenshot="$PNG" --window-size=1200,600 "file://$SVG" 2>"$T/chrome.err" ||
	fail "chromium --screenshot failed: $(tail -5 "$T/chrome.err")"
[ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "$PNG is not a PNG"
[ "$(wc -c <"$PNG")" -gt 10000 ] || fail "$PNG is only $(wc -c <"$PNG") bytes"
echo "screenshot: $PNG, $(wc -c <"$PNG") bytes"
