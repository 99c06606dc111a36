# Shared by the ClickHouse tests: sourced after lib.sh.  Each server runs as
# root on loopback with its config, data and logs under $T, never the
# system's; all are stopped at exit.
command -v clickhouse-server >/dev/null 2>&1 ||
    skip "no clickhouse-server (Debian's clickhouse-server package)"

CH_PIDS=
ch_cleanup() {
	for p in $CH_PIDS; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	cleanup
}
trap ch_cleanup EXIT

# A port not listened on at the address (from /proc/net/tcp): ch_port ADDR BASE.
ch_port() {
	p=$2
	while grep -qi ":$(printf '%04X' "$p") " /proc/net/tcp 2>/dev/null; do p=$((p + 1)); done
	echo "$p"
}

# ch_start NAME ADDR HTTP TCP [REMOTE_SERVERS_XML]: the server's pid in
# CH_PID; waits (up to 120 s) until it answers over HTTP.
ch_start() {
	d=$T/ch-$1
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	cat >"$d/config.xml" <<EOC
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/err.log</errorlog></logger>
  <http_port>$3</http_port>
  <tcp_port>$4</tcp_port>
  <listen_host>$2</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <remote_servers>${5:-}</remote_servers>
</yandex>
EOC
	cat >"$d/users.xml" <<EOC
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.0/8</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOC
	clickhouse-server --config-file="$d/config.xml" >"$d/stdout" 2>&1 &
	CH_PID=$!
	CH_PIDS="$CH_PIDS $CH_PID"
	i=0
	until curl -sf "http://$2:$3/?query=SELECT%201" >/dev/null 2>&1; do
		kill -0 "$CH_PID" 2>/dev/null || fail "clickhouse-server $1 exited: $(tail -5 "$d/err.log" "$d/stdout" 2>/dev/null)"
		i=$((i + 1))
		[ $i -lt 1200 ] || fail "clickhouse-server $1 did not answer in 120 s"
		sleep 0.1
	done
}

# ch_sql ADDR HTTP SQL: the answer (TabSeparated) on stdout.
ch_sql() { curl -sfS --data-binary "$3" "http://$1:$2/"; }

# A template image with 200 procedures and a build-id (as bench/prof.sh's).
ch_template() {
	i=0
	while [ $i -lt 200 ]; do
		echo "unsigned long ch_fn_$i(unsigned long n) { unsigned long x = $i; while (n--) x = x * $((i + 3)) + (n ^ $i); return x; }"
		i=$((i + 1))
	done >"$T/t.c"
	${CC:-cc} -O1 -fPIC -shared -Wl,--build-id=sha1 -o "$T/template.so" "$T/t.c" ||
	    fail "cannot build the template"
}

# The CSV rows of prof (after the header line) as "SAMPLES,PROCEDURE,IMAGE",
# summed over the files given, sorted.
sum_rows() {
	awk -F, 'FNR > 1 { n[$4 "," $5] += $1 } END { for (k in n) print n[k] "," k }' "$@" | sort
}
