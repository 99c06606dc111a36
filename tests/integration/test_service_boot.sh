#!/bin/sh
# The service for real: the Debian package built from this tree
# (dpkg-buildpackage), installed with apt into a minimal Debian that boots
# systemd as PID 1 in systemd-nspawn, and checked as an operator would:
# the unit starts and notifies, dcpictl works for root and the dcpi group
# and not for others, kernel samples are attributed under the hardened
# unit, aggregate = auto counts in the kernel (and says why not where
# the unit's filter refuses bpf()), a bad reload fails, a start that
# cannot succeed is not retried for ever, the epoch timer rotates, the
# watchdog keeps dcpid, and an upgrade or a stop loses no sample.
#
# The debootstrapped tree is kept in the build tree (tests/boot-cache/)
# and copied for each run.  Skips (77) where the tools are missing or nspawn
# cannot boot; under DCPI_REQUIRE_PERF=1 (CI) that is a failure.
. "$top_srcdir/tests/integration/lib.sh"

[ "$(id -u)" = 0 ] || skip "not root: debootstrap and systemd-nspawn need root"
for t in debootstrap systemd-nspawn dpkg-buildpackage dh nsenter; do
	command -v $t >/dev/null || skip "$t is not installed"
done

NSPAWN_PID=
stop_container() {
	[ -n "$NSPAWN_PID" ] || return 0
	kill -TERM "$NSPAWN_PID" 2>/dev/null
	for _ in $(seq 1 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$NSPAWN_PID" 2>/dev/null
	wait "$NSPAWN_PID" 2>/dev/null
	NSPAWN_PID=
}
trap 'stop_container; cleanup' EXIT

# --- the package, from the same files as the release tarball ---
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
src=$T/src/dcpi-$version
mkdir -p "$T/src"
make -s -C "$top_builddir" distdir distdir="$src" >"$T/distdir.log" 2>&1 ||
    fail "make distdir: $(tail -n 20 "$T/distdir.log")"
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
    >"$T/build.log" 2>&1 || fail "dpkg-buildpackage: $(tail -n 30 "$T/build.log")"
deb=$(ls "$T"/src/dcpi_"$version"_*.deb) && lib=$(ls "$T"/src/libdcpi5_"$version"_*.deb) &&
    ls "$T"/src/libdcpi-dev_"$version"_*.deb >/dev/null || fail "packages missing: $(ls "$T/src")"
if command -v lintian >/dev/null; then
	lintian --fail-on error "$T"/src/*_"$version"_*.deb 2>&1 |
	    grep -v 'running with root privileges' >"$T/lintian"
	grep -q '^E:' "$T/lintian" && fail "lintian: $(cat "$T/lintian")"
	echo "lintian: $(grep -c '^E:' "$T/lintian") errors, $(grep -c '^W:' "$T/lintian") warnings"
	sed 's/^/  /' "$T/lintian"
fi

# --- a minimal Debian of the host's release, debootstrapped once ---
. /etc/os-release
suite=${VERSION_CODENAME:?}
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n' |
    grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
    /etc/apt/sources.list 2>/dev/null)
: "${mirror:=http://deb.debian.org/debian}"
cache=$top_builddir/tests/boot-cache
mkdir -p "$cache"
(
	flock 9
	if [ ! -d "$cache/$suite" ]; then
		rm -rf "$cache/$suite.tmp"
		debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus \
		    "$suite" "$cache/$suite.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		    { tail -n 20 "$cache/debootstrap.log"; exit 1; }
		mv "$cache/$suite.tmp" "$cache/$suite"
	fi
) 9>"$cache/lock" || skip "debootstrap $suite from $mirror failed"
ROOT=$T/root
cp -a "$cache/$suite" "$ROOT" || fail "cannot copy the $suite tree"
# The packages' dependencies, from the mirror, before the network goes:
# the container boots with --private-network.
deps=$( (dpkg-deb -f "$deb" Depends; dpkg-deb -f "$lib" Depends) |
    tr '\n' ',' | sed 's/libdcpi5 ([^)]*)//; s/ *,[ ,]*/, /g; s/^, //; s/, $//')
chroot "$ROOT" apt-get satisfy -y -q "$deps" >"$T/deps.log" 2>&1 ||
    skip "cannot install the dependencies ($deps) from $mirror: $(tail -n 5 "$T/deps.log")"
mkdir "$ROOT/debs" && cp "$deb" "$lib" "$ROOT/debs/"
deb=/debs/${deb##*/} lib=/debs/${lib##*/}

# --- boot ---
# nspawn's own seccomp filter lets neither perf_event_open nor bpf (for
# aggregate = auto) through by default; a host has no such filter.
systemd-nspawn -D "$ROOT" -b --register=no --keep-unit --private-network \
    --capability=all --system-call-filter='perf_event_open bpf' >"$T/console.log" 2>&1 </dev/null &
NSPAWN_PID=$!
LEADER=
for _ in $(seq 1 300); do
	LEADER=$(pgrep -P "$NSPAWN_PID" -x systemd) && break
	kill -0 "$NSPAWN_PID" 2>/dev/null || break
	sleep 0.1
done
[ -n "$LEADER" ] || skip "systemd-nspawn could not boot $suite: $(tail -n 20 "$T/console.log")"
# A clean environment, as a root login in the container has.
ct() { nsenter -t "$LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
# systemctl answers once PID 1's private bus is up.
state=
for _ in $(seq 1 240); do
	state=$(ct timeout 120 systemctl is-system-running --wait 2>/dev/null) && break
	case $state in running|degraded|maintenance) break ;; esac
	sleep 0.5
done
case $state in
running|degraded) ;;
*) fail "the container did not come up: $state; $(ct systemctl --failed --no-pager 2>&1)" ;;
esac
echo "booted $suite (systemd $(ct systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p')) as PID 1 in systemd-nspawn: $state"

# Figures of the running dcpid: its status value, and an epoch's samples as
# `dcpictl epochs` counts them.
st() { ct dcpictl status | awk -v k="$1" '$1 == k { print $2; exit }'; }
unattributed() { ct dcpictl status | awk '$1 == "unattributed" { s += $3 } END { print s + 0 }'; }
epoch_samples() { ct dcpictl epochs | awk -v e="$1" '$1 == e { print $(NF - 1) }'; }
current() { ct readlink /var/lib/dcpi/current; }
mainpid() { ct systemctl show -P MainPID dcpid; }
wait_samples() {
	for _ in $(seq 1 100); do
		[ "$(st samples)" -ge "$1" ] 2>/dev/null && return 0
		sleep 0.1
	done
	fail "dcpid has fewer than $1 samples: $(ct dcpictl status 2>&1 | head -n 3)"
}

# --- install with apt: sysusers, units enabled and started by the package ---
ct apt-get install -y -q --no-install-recommends "$deb" "$lib" >"$T/install.log" 2>&1 ||
    fail "apt-get install: $(tail -n 20 "$T/install.log")"
for _ in $(seq 1 100); do ct systemctl -q is-active dcpid && break; sleep 0.1; done
ct systemctl -q is-active dcpid ||
    fail "dcpid is not active after the install: $(ct systemctl status dcpid --no-pager 2>&1)"
ct systemctl -q is-enabled dcpid || fail "dcpid.service is not enabled"
ct systemctl -q is-active dcpi-epoch.timer || fail "dcpi-epoch.timer is not active"
ct getent group dcpi >/dev/null || fail "the package did not create the dcpi group"
ct test -f /etc/cron.d/dcpi || fail "no /etc/cron.d/dcpi"
ct dpkg-query -W -f='${Conffiles}\n' dcpi | grep -q '/etc/dcpi/dcpid.conf' ||
    fail "/etc/dcpi/dcpid.conf is not a conffile"
echo "installed: dcpid active and enabled, dcpi-epoch.timer active, group dcpi"

exposure=$(ct systemd-analyze security dcpid --no-pager 2>&1 |
    sed -n 's/.*Overall exposure level for dcpid.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] && awk -v x="$exposure" 'BEGIN { exit !(x <= 2.2) }' ||
    fail "systemd-analyze security dcpid: exposure '$exposure', above 2.2"
echo "systemd-analyze security dcpid: $exposure"

# Notify: READY (is-active above) and the status text.
for _ in $(seq 1 100); do
	text=$(ct systemctl show -P StatusText dcpid)
	case $text in *samples/s*) break ;; esac
	sleep 0.1
done
case $text in *samples/s*epoch*) ;; *) fail "StatusText of dcpid: '$text'" ;; esac
echo "StatusText: $text"

# --- who may talk to dcpid ---
ct useradd -m alice && ct usermod -aG dcpi alice && ct useradd -m bob ||
    fail "cannot add the test users"
ct dcpictl status >"$T/st.root" || fail "dcpictl status as root"
ct runuser -u alice -- dcpictl status >"$T/st.alice" 2>&1 ||
    fail "dcpictl status as alice (group dcpi): $(cat "$T/st.alice")"
ct runuser -u alice -- dcpictl flush >"$T/fl.alice" 2>&1 ||
    fail "dcpictl flush as alice (group dcpi): $(cat "$T/fl.alice")"
ct runuser -u bob -- dcpictl status >"$T/st.bob" 2>&1 &&
    fail "bob, not in group dcpi, got the status: $(head -n 3 "$T/st.bob")"
echo "dcpictl status: root and alice (dcpi) yes; bob: $(head -n 1 "$T/st.bob")"

# --- kernel samples attributed under the shipped unit ---
ct sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done; dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null'
wait_samples 3000
n=$(st samples) ku=$(ct dcpictl status | awk '$1 == "unattributed" && $2 == "kernel-unknown" { print $3 }')
[ -n "$ku" ] && [ $((ku * 100)) -le "$n" ] || fail "kernel-unknown $ku of $n samples: kernel samples not attributed"
ct sh -c 'zcat "/var/lib/dcpi/$(cat /var/lib/dcpi/current/*/kallsyms.ref)" | grep -q "^[0-9a-f]*[1-9a-f][0-9a-f]* [Tt] _stext$"' ||
    fail "the epoch's kernel symbols snapshot has no addresses"
ct dcpictl flush >/dev/null || fail "dcpictl flush"
ct dcpictl prof -i >"$T/prof" || fail "dcpictl prof -i"
kpct=$(awk '$NF == "[kernel.kallsyms]" { print $2; exit }' "$T/prof")
[ -n "$kpct" ] || fail "no [kernel.kallsyms] in prof -i: $(head -n 12 "$T/prof")"
echo "kernel: kernel-unknown $ku of $n samples; [kernel.kallsyms] $kpct% of the attributed samples"

# --- labels: a service's samples carry its unit's name ---
ct systemd-run --unit=dcpitest-burn.service --wait -q \
    sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done' ||
    fail "systemd-run of dcpitest-burn.service failed"
ct dcpictl flush >/dev/null || fail "dcpictl flush"
ct sh -c 'ls -d /var/lib/dcpi/current/*/*/*/' >"$T/labels" 2>/dev/null
f=$(ct sh -c 'ls /var/lib/dcpi/current/*/*/dcpitest-burn.service/dash.* 2>/dev/null | head -n 1')
[ -n "$f" ] || fail "no profile of dash under the label dcpitest-burn.service: $(cat "$T/labels"); $(ct sh -c 'ls /var/lib/dcpi/current/*/*/*/dash* /var/lib/dcpi/current/*/*/dash*; dcpictl status | grep label')"
ct dcpictl cat --summary "$f" | grep -qx 'label dcpitest-burn.service' ||
    fail "$f: no label line: $(ct dcpictl cat --summary "$f" | head -n 12)"
n=$(ct dcpictl cat --summary "$f" | sed -n 's/^total_samples //p')
echo "labels: dcpitest-burn.service's dash has $n samples; label directories: $(sed 's|.*/\([^/]*\)/$|\1|' "$T/labels" | sort -u | tr '\n' ' ')"

# --- reload: a bad file fails visibly and changes nothing ---
pid=$(mainpid)
ct cp /etc/dcpi/dcpid.conf /root/dcpid.conf.good
ct sh -c 'echo "flush-interval = soon" >>/etc/dcpi/dcpid.conf'
ct systemctl reload dcpid >"$T/reload" 2>&1 && fail "systemctl reload succeeded with a bad file"
ct journalctl -u dcpid --no-pager -o cat | grep -q "flush-interval.*keeping the old configuration" ||
    fail "the journal does not say why the reload failed: $(ct journalctl -u dcpid --no-pager -n 5 -o cat)"
ct systemctl -q is-active dcpid && [ "$(mainpid)" = "$pid" ] || fail "a failed reload stopped dcpid"
ct cp /root/dcpid.conf.good /etc/dcpi/dcpid.conf
ct systemctl reload dcpid || fail "systemctl reload of the good file failed"
echo "reload: a bad file fails ($(ct journalctl -u dcpid --no-pager -o cat | grep -m1 'keeping the old'))"

# --- aggregate = auto counts in the kernel under the unit (CAP_BPF, bpf()) ---
ct sh -c 'echo "aggregate = auto" >>/etc/dcpi/dcpid.conf'
ct systemctl reload dcpid || fail "systemctl reload with aggregate = auto failed"
agg=$(ct dcpictl status | grep '^aggregate ')
case $agg in "aggregate "*" bpf ("*) ;; *) fail "aggregate = auto under the unit: $agg" ;; esac
echo "aggregate = auto under the unit: $agg"
# A unit whose filter keeps bpf() out: the ring, saying why.
ct mkdir -p /run/systemd/system/dcpid.service.d
ct sh -c 'printf "[Service]\nSystemCallFilter=~bpf\n" >/run/systemd/system/dcpid.service.d/nobpf.conf'
ct systemctl daemon-reload
ct systemctl restart dcpid || fail "dcpid did not start with bpf() filtered out"
agg=$(ct dcpictl status | grep '^aggregate ')
case $agg in "aggregate "*" ring (BPF: bpf() refused by a seccomp filter"*) ;;
*) fail "aggregate = auto without bpf(): $agg" ;; esac
echo "aggregate = auto without bpf(): $agg"
ct rm -r /run/systemd/system/dcpid.service.d
ct systemctl daemon-reload
ct cp /root/dcpid.conf.good /etc/dcpi/dcpid.conf
ct systemctl restart dcpid || fail "dcpid did not start again"

# --- a start that cannot succeed: named, not retried, no epoch ---
epochs_before=$(ct ls /var/lib/dcpi | grep -c '^2')
ct mkdir -p /run/systemd/system/dcpid.service.d
ct sh -c 'printf "[Service]\nSystemCallFilter=~perf_event_open\n" >/run/systemd/system/dcpid.service.d/deny.conf'
ct systemctl daemon-reload
ct systemctl restart dcpid 2>/dev/null && fail "dcpid started with perf_event_open filtered out"
sleep 7	# past RestartSec=5
[ "$(ct systemctl show -P ExecMainStatus dcpid)" = 77 ] && [ "$(ct systemctl show -P NRestarts dcpid)" = 0 ] &&
    [ "$(ct systemctl show -P ActiveState dcpid)" = failed ] ||
    fail "after a refused perf_event_open: $(ct systemctl show -p ExecMainStatus,NRestarts,ActiveState dcpid)"
ct journalctl -u dcpid --no-pager -o cat | grep -q 'blocked by a seccomp filter' ||
    fail "the journal does not name the seccomp filter: $(ct journalctl -u dcpid --no-pager -n 5 -o cat)"
[ "$(ct ls /var/lib/dcpi | grep -c '^2')" = "$epochs_before" ] || fail "the failed start made an epoch"
ct rm -r /run/systemd/system/dcpid.service.d
ct systemctl daemon-reload
ct systemctl restart dcpid || fail "dcpid did not start again"
echo "seccomp: exit 77, not restarted: $(ct journalctl -u dcpid --no-pager -o cat | grep -m1 'blocked by a seccomp')"

# --- upgrade: the package installed again while dcpid runs ---
wait_samples 1000
epoch=$(current)
ct dcpictl flush >/dev/null || fail "dcpictl flush"
sum0=$(epoch_samples "$epoch") n0=$(st samples) u0=$(unattributed)
sleep 3
n1=$(st samples) u1=$(unattributed) pid=$(mainpid)
ct apt-get install -y -q --reinstall --no-install-recommends "$deb" "$lib" >"$T/upgrade.log" 2>&1 ||
    fail "apt-get install --reinstall: $(tail -n 20 "$T/upgrade.log")"
ct systemctl -q is-active dcpid || fail "dcpid not active after the upgrade"
pid2=$(mainpid) t2=$(date +%s)
[ "$pid2" != "$pid" ] || fail "the upgrade did not restart dcpid (pid $pid)"
[ "$(current)" = "$epoch" ] || fail "the upgrade moved the epoch from $epoch to $(current)"
sum1=$(epoch_samples "$epoch")
[ $((sum1 - sum0)) -ge $((n1 - n0 - (u1 - u0))) ] ||
    fail "upgrade lost samples: the epoch grew by $((sum1 - sum0)), dcpid had taken $((n1 - n0 - (u1 - u0))) since the flush"
echo "upgrade: pid $pid -> $pid2, epoch $epoch kept, +$((sum1 - sum0)) samples on disk for $((n1 - n0 - (u1 - u0))) taken"

# --- the epoch timer and its service ---
ct systemctl list-timers --all --no-pager | grep -q 'dcpi-epoch.timer.*dcpi-epoch.service' ||
    fail "dcpi-epoch.timer not listed: $(ct systemctl list-timers --all --no-pager)"
sleep 1	# epochs are named by the second
ct systemctl start dcpi-epoch.service || fail "dcpi-epoch.service failed: $(ct journalctl -u dcpi-epoch --no-pager -n 5 -o cat)"
[ "$(current)" != "$epoch" ] || fail "dcpi-epoch.service did not rotate current ($epoch)"
echo "timer: dcpi-epoch.service rotated $epoch -> $(current)"

# --- the watchdog (WatchdogSec=60) keeps the same dcpid ---
left=$((t2 + 65 - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
[ "$(mainpid)" = "$pid2" ] && [ "$(ct systemctl show -P NRestarts dcpid)" = 0 ] &&
    ct systemctl -q is-active dcpid || fail "dcpid restarted within 65 s: $(ct systemctl show -p MainPID,NRestarts dcpid)"
ct journalctl -u dcpid --no-pager -o cat | grep -qi watchdog && fail "watchdog messages: $(ct journalctl -u dcpid --no-pager -o cat | grep -i watchdog)"
echo "watchdog: pid $pid2 for $(($(date +%s) - t2)) s, no restart"

# --- stop flushes ---
epoch=$(current)
ct dcpictl flush >/dev/null || fail "dcpictl flush"
sum0=$(epoch_samples "$epoch") n0=$(st samples) u0=$(unattributed)
sleep 2
n1=$(st samples) u1=$(unattributed)
ct systemctl stop dcpid || fail "systemctl stop dcpid"
sum1=$(epoch_samples "$epoch")
ct journalctl -u dcpid --no-pager -o cat | grep -q 'final flush' && fail "the final flush failed"
[ $((sum1 - sum0)) -ge $((n1 - n0 - (u1 - u0))) ] ||
    fail "stop lost samples: the epoch grew by $((sum1 - sum0)), dcpid had taken $((n1 - n0 - (u1 - u0))) since the flush"
echo "stop: +$((sum1 - sum0)) samples on disk for $((n1 - n0 - (u1 - u0))) taken after the last flush"
