#include "config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <unistd.h>

#include "perf.h"

int
perf_sys_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void *
perf_sys_mmap(int fd, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

int
perf_sys_munmap(void *base, size_t len)
{
	return munmap(base, len);
}

int
perf_sys_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}
