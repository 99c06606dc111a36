/*
 * Small helpers that libdcpi, dcpid and dcpictl share (not installed;
 * lib/base.mk links them into libdcpi and libdcpiutil, and libdcpi's export
 * regex keeps them out of its ABI).
 */
#ifndef DCPI_UTIL_H
#define DCPI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 64-bit FNV-1a.  The profiles' content ids (lib/dcpi/image.h) are this
 * hash, so its constants are part of the format. */
#define FNV1A64_INIT	0xcbf29ce484222325ULL

/* Continues hash h over p[0..n). */
uint64_t fnv1a64(uint64_t h, const void *p, size_t n);
/* Continues hash h over the string s without its NUL. */
uint64_t fnv1a64_str(uint64_t h, const char *s);

/* b[0..len) as lowercase hex into out, which holds 2 * len + 1 bytes
 * (NUL-terminated). */
void hex_encode(const uint8_t *b, size_t len, char *out);

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: shortest
 * form, no surrogate, at most U+10FFFF; an ASCII byte, control bytes
 * included, is 1), or 0 if none begins there.  s is NUL-terminated: a
 * sequence cut by the NUL is none, and nothing past the NUL is read.
 * Names are bytes (paths, symbols, labels); a reader of UTF-8 text
 * (JSON, XML, proto3 strings) needs them as such. */
size_t utf8_len(const unsigned char *s);

/* How text from outside (names in profiles, labels, paths, symbols, a
 * JIT's map) may reach a terminal: the length of the sequence at s to be
 * written as it is, or 0 where the byte at s is to be written as \xHH.
 * Written as they are: printable ASCII (0x20-0x7e) and well-formed UTF-8
 * (utf8_len) but for the C1 controls U+0080-U+009F (a CSI, U+009B, drives
 * a terminal as ESC [ does), the line and paragraph separators U+2028 and
 * U+2029, and the bidirectional embeddings, overrides and isolates
 * U+202A-U+202E and U+2066-U+2069 (which reorder what follows them on the
 * line).  Escaped: C0 controls (tab and newline too), DEL, every byte of
 * an escaped sequence one by one, and bytes that begin no well-formed
 * sequence.  s is NUL-terminated; at the NUL, 0 is returned. */
size_t text_len(const unsigned char *s);

/* s[0..n) as text_len lets it out, the rest \xHH (a NUL inside too), into
 * out, which holds 4 * n + 1 bytes; NUL-terminated.  TEXT_KEEP_TAB keeps
 * a tab as it is (a log line, a header value).  s[n] must be readable and
 * no UTF-8 continuation byte (a NUL, a newline): a sequence is one only
 * within s[0..n).  Returns the end of out (its NUL). */
#define TEXT_KEEP_TAB	1
char *text_escape(char *out, const char *s, size_t n, unsigned flags);

/* CLOCK_MONOTONIC in milliseconds. */
long long now_ms(void);

/* mkdir -p: creates path's missing components, the parents with mode
 * parent_mode and path itself with mode (both before the umask), each
 * made durable by an fsync of its parent directory; existing ones are left
 * as they are.  0, or -1 with errno (mkdir's, the parent's open or fsync,
 * ENAMETOOLONG past PATH_MAX) and the component that failed (path itself
 * for ENAMETOOLONG) in failed[failedlen]. */
int mkdir_parents(const char *path, mode_t parent_mode, mode_t mode,
    char *failed, size_t failedlen);

#endif
