#include "config.h"

#include <sys/epoll.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "util.h"
#include "xmalloc.h"

struct watch {
	loop_cb	 cb;
	void	*arg;
	int	 used;
};

struct loop_timer {
	loop_timer_cb	 cb;
	void		*arg;
	uint64_t	 deadline;	/* loop_now_ms() */
	uint64_t	 slack;		/* may fire this much earlier */
	size_t		 slot;		/* in timers[] */
	int		 armed;
	int		 fire;		/* due in the round being run */
};

static int		 epfd = -1;
static struct watch	*w;	/* indexed by fd */
static size_t		 nw;
/* Few timers (the daemon's own, the control socket's): a scan for
 * the earliest costs less than keeping a heap. */
static struct loop_timer **timers;
static size_t		 ntimers, timercap;
static int		 running;	/* in run_timers: deletions leave holes */

void
loop_init(void)
{
	if ((epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
}

void
loop_fini(void)
{
	size_t i;

	if (epfd != -1)
		close(epfd);
	epfd = -1;
	free(w);
	w = NULL;
	nw = 0;
	for (i = 0; i < ntimers; i++)
		free(timers[i]);
	free(timers);
	timers = NULL;
	ntimers = timercap = 0;
}

uint64_t
loop_now_ms(void)
{
	return (uint64_t)now_ms();
}

struct loop_timer *
loop_timer_add(uint64_t ms, loop_timer_cb cb, void *arg)
{
	struct loop_timer *t = xcalloc(1, sizeof(*t));

	if (ntimers == timercap) {
		timercap = timercap ? timercap * 2 : 8;
		timers = xreallocarray(timers, timercap, sizeof(*timers));
	}
	t->cb = cb;
	t->arg = arg;
	t->slot = ntimers;
	timers[ntimers++] = t;
	loop_timer_set(t, ms);
	return t;
}

void
loop_timer_set(struct loop_timer *t, uint64_t ms)
{
	t->deadline = loop_now_ms() + ms;
	t->armed = 1;
	t->fire = 0;
}

void
loop_timer_set_slack(struct loop_timer *t, uint64_t slack)
{
	t->slack = slack;
}

void
loop_timer_stop(struct loop_timer *t)
{
	t->armed = 0;
	t->fire = 0;
}

void
loop_timer_del(struct loop_timer *t)
{
	if (t == NULL)
		return;
	if (running)
		timers[t->slot] = NULL;
	else {
		timers[t->slot] = timers[--ntimers];
		timers[t->slot]->slot = t->slot;
	}
	free(t);
}

/* Milliseconds until the earliest armed timer, or -1 if none is armed. */
static int
timer_timeout(void)
{
	uint64_t now = loop_now_ms(), first = UINT64_MAX;
	size_t i;

	for (i = 0; i < ntimers; i++)
		if (timers[i]->armed && timers[i]->deadline < first)
			first = timers[i]->deadline;
	if (first == UINT64_MAX)
		return -1;
	if (first <= now)
		return 0;
	return first - now > INT_MAX ? INT_MAX : (int)(first - now);
}

/* Calls the timers due now, once each, earliest deadline first, and where
 * one is due those whose slack reaches now: one that re-arms itself for
 * 0 ms runs in the next round, after the fds. */
static void
run_timers(void)
{
	uint64_t now = loop_now_ms();
	size_t i, n = ntimers, k;
	int due = 0;

	for (i = 0; i < n; i++) {
		timers[i]->fire = timers[i]->armed && timers[i]->deadline <= now;
		due |= timers[i]->fire;
	}
	for (i = 0; due && i < n; i++)
		if (timers[i]->armed && timers[i]->deadline <= now + timers[i]->slack)
			timers[i]->fire = 1;
	/* Earliest deadline first: a round that finds several due (the host
	 * was busy) keeps their order, not the order they were added in. */
	running = 1;
	for (;;) {
		struct loop_timer *t = NULL;

		for (i = 0; i < n; i++)
			if (timers[i] != NULL && timers[i]->fire &&
			    (t == NULL || timers[i]->deadline < t->deadline))
				t = timers[i];
		if (t == NULL)
			break;
		t->fire = t->armed = 0;
		t->cb(t, t->arg);
	}
	running = 0;
	for (i = k = 0; i < ntimers; i++)
		if (timers[i] != NULL) {
			timers[i]->slot = k;
			timers[k++] = timers[i];
		}
	ntimers = k;
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
	int i, n, t = timer_timeout();

	if (t != -1 && (timeout_ms < 0 || t < timeout_ms))
		timeout_ms = t;
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
	run_timers();
	return n;
}
