/*
 * dcpid's one event loop (epoll).  Modules register their fds with a
 * callback; signal handlers only set flags that loop_run() acts on between
 * waits.  Owned by the daemon core (daemon/loop.c).
 */
#ifndef DCPID_LOOP_H
#define DCPID_LOOP_H

#include <signal.h>
#include <stdint.h>

typedef void (*loop_cb)(int fd, uint32_t events, void *arg);

void loop_init(void);
void loop_fini(void);
/* Watches fd for events (EPOLLIN, ...) and calls cb(fd, events, arg); fatal
 * on failure.  loop_del must be called before fd is closed. */
void loop_add(int fd, uint32_t events, loop_cb cb, void *arg);
void loop_mod(int fd, uint32_t events);
void loop_del(int fd);
/* Waits up to timeout_ms (-1: forever) with the signal mask set to sigmask
 * (NULL: unchanged), so that signals blocked elsewhere are delivered only
 * here and interrupt the wait, then calls the callbacks of the ready fds.
 * Returns the number of fds handled, 0 on timeout or signal. */
int loop_wait(int timeout_ms, const sigset_t *sigmask);

#endif
