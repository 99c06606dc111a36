/*
 * Cgroups: who owns a process, for the labels of its samples (lib/dcpi/
 * label.h).  Pure functions over the kernel's texts (/proc/PID/cgroup,
 * /proc/self/mountinfo) and a walk of the cgroup2 hierarchy; no state.
 *
 * A label names the systemd unit, the container or the machine a cgroup
 * belongs to (CGROUP_LABEL_UNIT), or is the cgroup path itself
 * (CGROUP_LABEL_CGROUP).  Every label returned is a valid label: non-empty,
 * no newline, not starting with a blank or '[' (dcpid's own labels), and
 * its directory name (dcpi_label_dirname) fits NAME_MAX.
 *
 * Errors: -1 with errno; nothing is logged.
 */
#ifndef DCPID_CGROUP_H
#define DCPID_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* Bytes that hold any label cgroup_label returns, NUL included (a label's
 * directory name is at most NAME_MAX bytes and no shorter than it). */
#define CGROUP_LABEL_MAX	256

enum cgroup_label_by { CGROUP_LABEL_NONE, CGROUP_LABEL_UNIT, CGROUP_LABEL_CGROUP };

/*
 * The label of a process in cgroup path (a cgroup v2 path as /proc/PID/
 * cgroup's "0::" line or PERF_RECORD_CGROUP give it, starting with '/'),
 * as a NUL-terminated string in out[outlen] (CGROUP_LABEL_MAX always
 * suffices).  Empty components (a trailing or doubled '/') are dropped.
 *
 * CGROUP_LABEL_UNIT, the first rule that applies:
 *  - a container, the outermost in the path: "docker-ID.scope" and
 *    cgroupfs's "/docker/ID" give "docker:ID12" (ID12: the id's first 12
 *    hex digits); "libpod-ID.scope" "podman:ID12"; "cri-containerd-ID.scope"
 *    "containerd:ID12"; "crio-ID.scope" "crio:ID12" (each also without
 *    ".scope", as cgroupfs drivers name them); a bare 64-digit ID below a
 *    "pod..." component under "kubepods"/"kubepods.slice" "container:ID12".
 *    "libpod-conmon-ID.scope" and "crio-conmon-ID.scope" are the monitors,
 *    not containers: they get the unit rule;
 *  - a machine: "machine-NAME.scope" or "systemd-nspawn@NAME.service" give
 *    "machine:NAME" with systemd's \xNN escapes decoded (kept as they are
 *    where they would decode to a control character);
 *  - the first component that is not a slice, when it is a unit name
 *    (.service .scope .socket .mount .swap .target .device .automount .path
 *    .timer), as systemd's cg_path_get_unit finds it: "/system.slice/
 *    nginx.service" "nginx.service", "/user.slice/user-1000.slice/
 *    user@1000.service/app.slice/x.service" "user@1000.service";
 *  - else the path, as CGROUP_LABEL_CGROUP.
 * CGROUP_LABEL_CGROUP: the path.  A path whose directory name would pass
 * NAME_MAX is shortened to "/…HASH/TAIL": HASH 16 hex digits of the FNV-1a
 * of the whole path (so that two long paths stay apart), TAIL the longest
 * run of its last components that fits (of its last bytes, at a UTF-8
 * character's start, when not even the last component fits).  A machine
 * name is shortened likewise, "machine:…HASH" then its tail.
 *
 * Returns 1 with a label; 0 (out[0] = '\0' when outlen > 0) for
 * CGROUP_LABEL_NONE, the root cgroup and an empty path; -1 with errno
 * EINVAL for a path not starting with '/' or holding '\n' (or an unknown
 * by), ENAMETOOLONG when the label does not fit out[outlen].
 */
int cgroup_label(const char *path, enum cgroup_label_by by, char *out,
    size_t outlen);

/*
 * The cgroup v2 path in the text of a /proc/PID/cgroup file (text[len],
 * not NUL-terminated; lines "ID:CONTROLLERS:PATH"): the first "0::PATH"
 * line's path; on a v1-only system, the "name=systemd" line's.  Written
 * NUL-terminated to out[outlen] (PATH_MAX bytes suffice).
 * Returns 1 with out set; 0 when neither line is there; -1 with errno
 * EINVAL for malformed text (a NUL, a line without two ':', an ID not
 * decimal, a path not starting with '/'), ENAMETOOLONG when the path does
 * not fit out[outlen].
 */
int cgroup_parse_proc(const char *text, size_t len, char *out, size_t outlen);

/*
 * /proc/PID/cgroup read and parsed by cgroup_parse_proc.  Returns 1 with
 * out set, 0 when it has no v2 (or name=systemd) line, -1 with errno:
 * ENOENT when the process is gone (ESRCH from the read is reported as
 * ENOENT), the errors of open(2)/read(2), ENOMEM, and cgroup_parse_proc's.
 */
int cgroup_read_pid(uint32_t pid, char *out, size_t outlen);

/*
 * The mount point of the cgroup2 hierarchy in the text of /proc/self/
 * mountinfo (text[len], not NUL-terminated; proc(5) "ID PARENT MAJ:MIN
 * ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS"):
 * the MOUNTPOINT of the first line whose FSTYPE is "cgroup2", its octal
 * escapes (\040 for a space) decoded, e.g. "/sys/fs/cgroup" or
 * "/sys/fs/cgroup/unified", NUL-terminated in out[outlen].  Lines after
 * that one are not looked at.
 * Returns 1 with out set; 0 when there is no cgroup2 line; -1 with errno
 * EINVAL for malformed text (a NUL, a line with too few fields or no "-"
 * separator, a bad escape or one for NUL), ENAMETOOLONG when the mount
 * point does not fit out[outlen].
 */
int cgroup_parse_mountinfo(const char *text, size_t len, char *out,
    size_t outlen);

/* cgroup_parse_mountinfo of /proc/self/mountinfo; its returns, and -1 with
 * the errno of reading the file. */
int cgroup_mount(char *out, size_t outlen);

/* The deepest level cgroup_walk descends to, the mount's root being 0
 * (cgroups below are not visited; the kernel's default allows any depth,
 * systemd's trees are a few levels deep). */
#define CGROUP_WALK_DEPTH	32

/*
 * Walks the cgroup2 hierarchy mounted at mount, depth first, a cgroup
 * before its children, calling cb(id, path, arg) for each: id as
 * PERF_SAMPLE_CGROUP gives it (the 8-byte file handle name_to_handle_at(2)
 * gives for the directory, as perf's tools/perf/util/cgroup.c
 * read_cgroup_id reads it; st_ino where name_to_handle_at fails), path
 * relative to the mount ("/" for the root, "/system.slice/x.service"; valid
 * during the call only).  Symbolic links are not followed; directories
 * deeper than CGROUP_WALK_DEPTH or with paths of PATH_MAX bytes or more are
 * not visited.  cb is called at most max times: the walk stops at the
 * (max+1)th cgroup.  Subdirectories that cannot be opened (EACCES; ENOENT,
 * a cgroup removed during the walk) are skipped.
 * Returns 0 when all were visited; 1 when stopped at max; -1 with errno
 * when mount cannot be opened, or another error (EMFILE, ENOMEM) stopped
 * the walk after cb saw what came before.
 */
int cgroup_walk(const char *mount, size_t max,
    void (*cb)(uint64_t id, const char *path, void *arg), void *arg);

/* The id of the cgroup directory at path (as cgroup_walk gives it): 0
 * and *id set, or -1 with errno (ENOENT, ENOTDIR, EACCES). */
int cgroup_path_id(const char *path, uint64_t *id);

#endif
