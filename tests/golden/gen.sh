#!/bin/sh
# Regenerates the hand-written golden profiles from the grammar of
# specs/dcpiformat.txt (not with libdcpi, so that they check the library
# rather than agree with it).  Run in tests/golden/; the outputs are kept in
# git, and *.cat are the expected `dcpictl cat` outputs, written by hand.
set -eu

le32() {
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# Unknown lines between known ones, all optional lines, a tab-separated
# unknown line with trailing blanks, header padded to a multiple of 4 bytes.
{
	printf 'version pdb-0.07\n'
	printf 'image 0123abcdefABCDEF\n'
	printf 'comment hand written from dcpiformat.txt\n'
	printf 'epoch 20261121223000\n'
	printf 'platform Linux 6.1.0 x86_64\n'
	printf 'event perf::cpu-clock:u\n'
	printf 'period 1000000\n'
	printf 'tstart 400000\n'
	printf 'tsize 4096\n'
	printf 'cpuspeed 2400\n'
	printf 'cpuamask 3\n'
	printf 'cpuimplv 7\n'
	printf 'cpucount 2\n'
	printf 'path /usr/bin/hot program\n'
	printf 'x-note\ttab separated   value with spaces  \n'
	printf 'samples\n'
} >unknown.prof
pad=$(( (4 - $(wc -c <unknown.prof) % 4) % 4 ))
head -c -1 unknown.prof >unknown.tmp
printf "%${pad}s\n" '' >>unknown.tmp
mv unknown.tmp unknown.prof
{
	le32 16; le32 3; le32 5; le32 0; le32 7
	le32 256; le32 1; le32 4294967295
	le32 3; le32 4294967295
} >>unknown.prof

# The 10-digit epoch form, a header of odd length (binary part unaligned),
# and tabs between keywords and values.
{
	printf 'version\tpdb-0.06\n'
	printf 'image\tdeadbeef\n'
	printf 'epoch\t9912312359\n'
	printf 'platform\tDigital UNIX V4.0 alpha\n'
	printf 'event\tcycles\n'
	printf 'period\t62976\n'
	printf 'tstart\t120000000\n'
	printf 'tsize\t100\n'
	printf 'cpuspeed\t500\n'
	printf 'samples\n'
	le32 0; le32 1; le32 9
	le32 99; le32 1; le32 1
	le32 2; le32 10
} >epoch10.prof

# No samples at all: the binary part is only the footer.
{
	printf 'version pdb-0.07\n'
	printf 'image 00\n'
	printf 'epoch 20260101000000\n'
	printf 'platform Linux\n'
	printf 'event page-faults\n'
	printf 'period 1\n'
	printf 'tstart 0\n'
	printf 'tsize 0\n'
	printf 'cpuspeed 0\n'
	printf 'samples\n'
	le32 0; le32 0
} >empty.prof

# Blanks after "samples" that do not pad to a multiple of 4.
{
	printf 'version pdb-0.07\n'
	printf 'image ff\n'
	printf 'epoch 20260101000000\n'
	printf 'platform Linux\n'
	printf 'event perf::task-clock\n'
	printf 'period 100000\n'
	printf 'tstart ffffffff81000000\n'
	printf 'tsize 16\n'
	printf 'cpuspeed 1000\n'
	printf 'samples \t \t\n'
	le32 15; le32 1; le32 42
	le32 1; le32 42
} >blanks.prof

# Malformed: chunks that overlap (the second starts inside the first).
{
	printf 'version pdb-0.07\nimage 01\nepoch 20260101000000\nplatform Linux\n'
	printf 'event cycles\nperiod 1\ntstart 1000\ntsize 64\ncpuspeed 1\nsamples\n'
	le32 0; le32 4; le32 1; le32 1; le32 1; le32 1
	le32 2; le32 1; le32 1
	le32 5; le32 5
} >bad-overlap.prof

# Malformed: header without the "samples" terminator.
printf 'version pdb-0.07\nimage 01\nepoch 20260101000000\n' >bad-noterm.prof
