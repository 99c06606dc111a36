#include "config.h"

#include <sys/epoll.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "xmalloc.h"

struct watch {
	loop_cb	 cb;
	void	*arg;
	int	 used;
};

static int		 epfd = -1;
static struct watch	*w;	/* indexed by fd */
static size_t		 nw;

void
loop_init(void)
{
	if ((epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
}

void
loop_fini(void)
{
	if (epfd != -1)
		close(epfd);
	epfd = -1;
	free(w);
	w = NULL;
	nw = 0;
}

void
loop_add(int fd, uint32_t events, loop_cb cb, void *arg)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (fd < 0)
		fatalx("loop_add: bad fd %d", fd);
	if ((size_t)fd >= nw) {
		size_t n = (size_t)fd + 1 > nw * 2 ? (size_t)fd + 1 : nw * 2;

		w = xreallocarray(w, n, sizeof(*w));
		memset(w + nw, 0, (n - nw) * sizeof(*w));
		nw = n;
	}
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
		fatal("epoll_ctl add fd %d", fd);
	w[fd] = (struct watch){ cb, arg, 1 };
}

void
loop_mod(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == -1)
		fatal("epoll_ctl mod fd %d", fd);
}

void
loop_del(int fd)
{
	if (epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL) == -1)
		log_warn("epoll_ctl del fd %d", fd);
	if (fd >= 0 && (size_t)fd < nw)
		w[fd].used = 0;
}

int
loop_wait(int timeout_ms, const sigset_t *sigmask)
{
	struct epoll_event evs[64];
	int i, n;

	n = epoll_pwait(epfd, evs, 64, timeout_ms, sigmask);
	if (n == -1) {
		if (errno == EINTR)
			return 0;
		fatal("epoll_pwait");
	}
	for (i = 0; i < n; i++) {
		int fd = evs[i].data.fd;

		/* An earlier callback of this round may have removed it. */
		if ((size_t)fd < nw && w[fd].used)
			w[fd].cb(fd, evs[i].events, w[fd].arg);
	}
	return n;
}
