/*
 * dcpid's one event loop (epoll).  Modules register their fds and timers
 * with a callback; signal handlers only set flags that the caller of
 * loop_wait() acts on between waits.  Owned by the daemon core
 * (daemon/loop.c).
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
/* Waits up to timeout_ms (-1: forever) or until the earliest timer is due,
 * with the signal mask set to sigmask (NULL: unchanged), so that signals
 * blocked elsewhere are delivered only here and interrupt the wait; then
 * calls the callbacks of the ready fds, then those of the timers due.
 * A signal returns at once, running no callback.  Returns the number of
 * fds handled, 0 on timeout or signal. */
int loop_wait(int timeout_ms, const sigset_t *sigmask);

/*
 * Timers on CLOCK_MONOTONIC, in milliseconds: one-shot, so that a periodic
 * timer re-arms itself in its callback (the period then counts from the
 * end of the work, as a flush that takes long does not run twice), and a
 * deadline (a connection's time-out) is moved by setting it again.
 */
struct loop_timer;
typedef void (*loop_timer_cb)(struct loop_timer *t, void *arg);
/* A timer calling cb(t, arg) once ms from now; never fails (allocation
 * failure is fatal).  The handle is the caller's until loop_timer_del. */
struct loop_timer *loop_timer_add(uint64_t ms, loop_timer_cb cb, void *arg);
/* (Re)arms t to fire ms from now, whether or not it is armed or running. */
void loop_timer_set(struct loop_timer *t, uint64_t ms);
/* Lets t fire up to slack ms before its deadline where another timer's
 * wake-up comes first, so that periodic work shares wake-ups (each costs
 * dcpid more than the work of a quiet tick); 0, the default: never early. */
void loop_timer_set_slack(struct loop_timer *t, uint64_t slack);
/* Disarms t; it stays the caller's, to be set again. */
void loop_timer_stop(struct loop_timer *t);
/* Disarms and frees t (NULL: nothing); allowed in any callback, t's own
 * included. */
void loop_timer_del(struct loop_timer *t);
/* Milliseconds on the timers' clock (CLOCK_MONOTONIC). */
uint64_t loop_now_ms(void);

#endif
