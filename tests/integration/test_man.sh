#!/bin/sh
# The manual pages: mandoc's linter and groff report nothing (mandoc's
# remarks about pages not installed on this machine aside), and every page
# has its EXAMPLES section.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

command -v mandoc >/dev/null || fail "mandoc is not installed (Debian package mandoc)"

n=0
for page in dcpictl.1 dcpi.5 dcpid.conf.5 dcpid.8; do
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

# Every key dcpid accepts is documented in dcpid.conf(5).
for key in event flush-interval database socket group cpus memory-cap buildid-cache-size keep-days keep-min verbose; do
	mandoc -T utf8 "$top_srcdir/man/dcpid.conf.5" 2>/dev/null | sed 's/\x08.//g' |
	    grep -q -- "^ *$key = " || fail "dcpid.conf(5) does not document '$key'"
done
echo "PASS: $n manual pages lint clean"
