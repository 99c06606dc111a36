#!/bin/sh
# The manual pages: mandoc's linter and groff report nothing (mandoc's
# remarks about pages not installed on this machine aside), and every page
# has its EXAMPLES section.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

command -v mandoc >/dev/null || fail "mandoc is not installed (Debian package mandoc)"

n=0
for page in dcpictl.1 dcpi.5 dcpid.conf.5 dcpid.8 dcpi-clickhouse.5; do
	f=$top_srcdir/man/$page
	[ -f "$f" ] || fail "$f is missing"
	# Cross-references are checked against mandoc.db, which a build
	# machine's manuals need not have: those remarks alone are dropped.
	mandoc -T lint "$f" >"$T/lint" 2>&1
	grep -v -e 'referenced manual not found' -e 'mandoc.db' "$T/lint" >"$T/lint.left"
	[ -s "$T/lint.left" ] && { cat "$T/lint.left" >&2; fail "mandoc -T lint $page"; }
	if command -v groff >/dev/null; then
		groff -ww -z -mdoc "$f" >"$T/groff" 2>&1 || fail "groff failed on $page"
		[ -s "$T/groff" ] && { cat "$T/groff" >&2; fail "groff -ww $page"; }
	fi
	grep -q '^\.Sh EXAMPLES' "$f" || fail "$page has no EXAMPLES section"
	# The page renders to text that names what it documents.
	mandoc -T utf8 "$f" >"$T/out" 2>/dev/null || fail "mandoc cannot render $page"
	grep -q "${page%.*}" "$T/out" || fail "$page does not render its name"
	n=$((n + 1))
done

# Every key dcpid accepts is documented in dcpid.conf(5): the keys are
# dcpid's own (--check-config prints each, set or as a comment), so a new
# one fails here until the page has it.
: >"$T/empty.conf"
"$DCPID" --check-config --config "$T/empty.conf" >"$T/keys.conf" ||
    fail "dcpid --check-config failed"
sed -n 's/^#\{0,1\} *\([a-z][a-z-]*\)\( =\|:\).*/\1/p' "$T/keys.conf" | sort -u >"$T/keys"
[ "$(wc -l <"$T/keys")" -ge 11 ] || { cat "$T/keys.conf" >&2; fail "too few keys in dcpid --check-config"; }
mandoc -T utf8 "$top_srcdir/man/dcpid.conf.5" 2>/dev/null | sed 's/\x08.//g' >"$T/conf5"
while read -r key; do
	grep -q -- "^ *$key = " "$T/conf5" || fail "dcpid.conf(5) does not document '$key'"
done <"$T/keys"
echo "PASS: $n manual pages lint clean"
