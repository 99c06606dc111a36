/*
 * The system calls that sampling makes (daemon/perf*.c), apart in
 * perf_sys.c so that the unit tests and bench/sample_path can replace them
 * (-Wl,--wrap=perf_sys_*): the linker redirects only calls from another
 * object file.
 */
#ifndef DCPID_PERF_SYS_H
#define DCPID_PERF_SYS_H

#include <sys/types.h>

#include <stddef.h>

struct perf_event_attr;

/* perf_sys_open opens a system-wide event on cpu (pid -1, no group,
 * close-on-exec); perf_sys_mmap maps len bytes of fd's ring buffer
 * read-write, MAP_FAILED on error; perf_sys_read is read(2) of an event's
 * count and times (read_format); perf_sys_cpus puts the first line of
 * /sys/devices/system/cpu/WHICH ("online", "possible": a CPU list such as
 * "0-3,6\n") into buf[len], 0 or -1.  All set errno. */
int perf_sys_open(struct perf_event_attr *a, int cpu);
void *perf_sys_mmap(int fd, size_t len);
int perf_sys_munmap(void *base, size_t len);
int perf_sys_ioctl(int fd, unsigned long request, void *arg);
ssize_t perf_sys_read(int fd, void *buf, size_t len);
int perf_sys_cpus(const char *which, char *buf, size_t len);

#endif
