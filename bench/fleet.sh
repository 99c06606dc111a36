#!/bin/sh
# The fleet benchmark (bench/README, "The fleet: push and fleet prof"):
# push rows/s and bytes per stored row for bench/mkprofdb's synthetic
# fleet (HOSTS hosts x 10 epochs), then fleet `prof -n 20` over the rows
# multiplied server-side to about 100 million, against local prof.
# Usage: bench/fleet.sh [BUILDDIR]   (default: the current directory)
# Environment: HOSTS (100), IMAGES (20), ADDRS (500 per image), COPIES (10:
# the stored rows are multiplied to COPIES times the pushed ones).
set -eu
B=$(cd "${1:-.}" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/dcpi-bench-fleet.XXXXXX")
HOSTS=${HOSTS:-100} IMAGES=${IMAGES:-20} ADDRS=${ADDRS:-500} COPIES=${COPIES:-10}
PID=
trap '[ -n "$PID" ] && kill -KILL $PID 2>/dev/null; rm -rf "$W"' EXIT
now() { date +%s.%N; }
sql() { curl -sfS --data-binary "$1" "http://127.0.0.1:$HP/"; }

# The template image (as bench/prof.sh), then the fleet: 11 epochs, the
# last current (not pushed).
i=0
while [ $i -lt 200 ]; do
	echo "unsigned long bench_fn_$i(unsigned long n) { unsigned long x = $i; while (n--) x = x * $((i + 3)) + (n ^ $i); return x; }"
	i=$((i + 1))
done >"$W/t.c"
${CC:-cc} -O1 -fPIC -shared -Wl,--build-id=sha1 -o "$W/template.so" "$W/t.c"
"$B/bench/mkprofdb" "$W/template.so" "$W" "$IMAGES" "$ADDRS" "$HOSTS" 11 >/dev/null

# A clickhouse-server of our own on loopback.
HP=$((32000 + $$ % 2000))
mkdir -p "$W/ch/data" "$W/ch/tmp"
cat >"$W/ch/config.xml" <<EOC
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$W/ch/server.log</log><errorlog>$W/ch/err.log</errorlog></logger>
  <http_port>$HP</http_port><tcp_port>$((HP + 1))</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>$W/ch/data/</path><tmp_path>$W/ch/tmp/</tmp_path><users_config>$W/ch/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <timezone>UTC</timezone><mark_cache_size>268435456</mark_cache_size>
</yandex>
EOC
cat >"$W/ch/users.xml" <<EOC
<?xml version="1.0"?>
<yandex><profiles><default><max_memory_usage>8000000000</max_memory_usage></default></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
<quotas><default></default></quotas></yandex>
EOC
clickhouse-server --config-file="$W/ch/config.xml" >"$W/ch/stdout" 2>&1 &
PID=$!
i=0
until sql "SELECT 1" >/dev/null 2>&1; do i=$((i + 1)); [ $i -lt 600 ]; sleep 0.1; done
URL=clickhouse://127.0.0.1:$HP/bench
echo "clickhouse-server $(sql 'SELECT version()'), $(nproc) CPUs"

t0=$(now)
"$B/ctl/dcpictl" -d "$W/db" push --to "$URL" --all >"$W/push.out"
t1=$(now)
tail -1 "$W/push.out"
rows=$(sql "SELECT count() FROM bench.samples")
sql "OPTIMIZE TABLE bench.samples FINAL" >/dev/null 2>&1 || true
awk -v r="$rows" -v a="$t0" -v b="$t1" -v h="$HOSTS" 'BEGIN {
    printf "push: %d (host, epoch), %d sample rows in %.1f s: %.0f rows/s\n", h * 10, r, b - a, r / (b - a) }'
sql "SELECT sum(rows), sum(bytes_on_disk), sum(bytes_on_disk) / sum(rows),
    sum(data_uncompressed_bytes) / sum(rows) FROM system.parts
    WHERE database = 'bench' AND table = 'samples' AND active" |
    awk '{ printf "stored: %d rows, %d bytes on disk: %.2f bytes per row (%.1f uncompressed)\n", $1, $2, $3, $4 }'

# Local prof over the same ten epochs (all but the current).
eps=$(ls "$W/db" | grep -v current | head -10 | sed 's/^/--epoch /' | tr '\n' ' ')
t0=$(now)
# shellcheck disable=SC2086
"$B/ctl/dcpictl" -d "$W/db" prof $eps -n 20 >"$W/local.txt"
t1=$(now)
awk -v a="$t0" -v b="$t1" -v r="$rows" 'BEGIN { printf "local prof -n 20, 10 epochs (%d rows): %.2f s\n", r, b - a }'
t0=$(now)
"$B/ctl/dcpictl" prof --from "$URL" -n 20 >"$W/fleet.txt"
t1=$(now)
awk -v a="$t0" -v b="$t1" -v r="$rows" 'BEGIN { printf "fleet prof -n 20 (%d rows): %.2f s\n", r, b - a }'
tail -n 20 "$W/local.txt" | awk '{ print $1, $4, $5 }' >"$W/l"
tail -n 20 "$W/fleet.txt" | awk '{ print $1, $4, $5 }' >"$W/f"
cmp -s "$W/l" "$W/f" && echo "the same 20 rows" || echo "ROWS DIFFER"

# Multiplied server-side: COPIES-1 more copies under other host names and
# push ids, each with its completion rows.
k=1
while [ $k -lt "$COPIES" ]; do
	sql "INSERT INTO bench.samples SELECT event, image, image_name, proc,
	    concat(host, 'c$k'), epoch_time, epoch, label, offset, count, period, push_id + $k
	    FROM bench.samples WHERE position(host, 'c') = 0" >/dev/null
	sql "INSERT INTO bench.pushes SELECT concat(host, 'c$k'), epoch, epoch_time, push_id + $k,
	    pushed_at, rows, version FROM bench.pushes WHERE position(host, 'c') = 0" >/dev/null
	k=$((k + 1))
done
sql "OPTIMIZE TABLE bench.samples FINAL" >/dev/null 2>&1 || true
big=$(sql "SELECT count() FROM bench.samples")
sql "SELECT sum(bytes_on_disk) / sum(rows) FROM system.parts
    WHERE database = 'bench' AND table = 'samples' AND active" |
    awk -v r="$big" '{ printf "multiplied: %d rows, %.2f bytes per row\n", r, $1 }'
for run in 1 2 3; do
	t0=$(now)
	"$B/ctl/dcpictl" prof --from "$URL" -n 20 >"$W/fleet.txt"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v r="$big" -v n=$run 'BEGIN { printf "fleet prof -n 20 (%d rows), run %d: %.2f s\n", r, n, b - a }'
done
t0=$(now)
"$B/ctl/dcpictl" prof --from "$URL" --host 'host0[0-9][0-9]' -n 20 >"$W/fleet1.txt"
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "fleet prof -n 20 --host host0[0-9][0-9] (the pushed hosts only): %.2f s\n", b - a }'
