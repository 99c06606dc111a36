#include "config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "perf_sys.h"

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

ssize_t
perf_sys_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

int
perf_sys_cpus(const char *which, char *buf, size_t len)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", which);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, (int)len, fp) == NULL) {
		fclose(fp);
		errno = EIO;
		return -1;
	}
	fclose(fp);
	return 0;
}
