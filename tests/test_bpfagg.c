/*
 * The drain of the in-kernel counts (daemon/bpfagg.c bpfagg_drain_fd)
 * against a mocked map: bpf_map_lookup_and_delete_batch is replaced
 * (-Wl,--wrap) by one that hands out a table of keys with per-CPU values
 * in batches, as the kernel does, ending with ENOENT.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <bpf/bpf.h>

#include <cmocka.h>

#include "bpfagg.h"

#define NCPU	3
#define NKEYS	2500	/* more than one batch of the drain's */

static struct bpfagg_key keys[NKEYS];
static uint64_t		 vals[NKEYS][NCPU];
static size_t		 nkeys, pos;
static int		 calls, fail_errno;

int __wrap_bpf_map_lookup_and_delete_batch(int fd, void *in_batch, void *out_batch,
    void *k, void *v, __u32 *count, const struct bpf_map_batch_opts *opts);

int
__wrap_bpf_map_lookup_and_delete_batch(int fd, void *in_batch, void *out_batch,
    void *k, void *v, __u32 *count, const struct bpf_map_batch_opts *opts)
{
	size_t n;

	(void)opts;
	assert_int_equal(fd, 42);
	calls++;
	if (fail_errno) {
		*count = 0;
		errno = fail_errno;
		return -1;
	}
	/* The first call starts over; later ones go on from out_batch. */
	if (in_batch == NULL)
		pos = 0;
	else
		assert_int_equal(*(uint64_t *)in_batch, pos);
	n = nkeys - pos < *count ? nkeys - pos : *count;
	memcpy(k, &keys[pos], n * sizeof(*keys));
	memcpy(v, &vals[pos], n * sizeof(*vals));
	pos += n;
	*(uint64_t *)out_batch = pos;
	*count = (__u32)n;
	if (pos == nkeys) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

struct seen {
	uint64_t	 total;
	size_t		 n;
	uint64_t	 per[NKEYS];
};

static void
cb(const struct bpfagg_key *k, uint64_t count, void *arg)
{
	struct seen *s = arg;

	assert_true(k->addr < NKEYS);
	assert_int_equal(s->per[k->addr], 0);	/* each key once */
	s->per[k->addr] = count;
	s->total += count;
	s->n++;
}

static void
fill(size_t n)
{
	size_t i, c;

	nkeys = n;
	for (i = 0; i < n; i++) {
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].addr = i;
		keys[i].ino = 1000 + i % 7;
		keys[i].event = (uint32_t)(i % 3);
		for (c = 0; c < NCPU; c++)
			vals[i][c] = (i + c) % 4;	/* some keys all zero */
	}
}

/* Every key's count summed over the CPUs, in several batches; keys whose
 * CPUs all hold 0 (emptied, not yet deleted) are left out. */
static void
test_drain_sums(void **state)
{
	static struct seen s;
	uint64_t want = 0, got;
	size_t i, c, nz = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill(NKEYS);
	for (i = 0; i < NKEYS; i++) {
		uint64_t sum = 0;

		for (c = 0; c < NCPU; c++)
			sum += vals[i][c];
		want += sum;
		nz += sum != 0;
	}
	calls = 0;
	got = bpfagg_drain_fd(42, NCPU, cb, &s);
	assert_int_equal(got, want);
	assert_int_equal(s.total, want);
	assert_int_equal(s.n, nz);
	assert_true(calls >= 3);
	for (i = 0; i < NKEYS; i++)
		assert_int_equal(s.per[i], (i % 4) + ((i + 1) % 4) + ((i + 2) % 4));
}

/* An empty map: one call, nothing handed over. */
static void
test_drain_empty(void **state)
{
	static struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill(0);
	calls = 0;
	assert_int_equal(bpfagg_drain_fd(42, NCPU, cb, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(calls, 1);
}

/* A refusal other than ENOENT stops the drain (logged); what the map
 * holds stays for the next one. */
static void
test_drain_error(void **state)
{
	static struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill(10);
	fail_errno = EPERM;
	calls = 0;
	assert_int_equal(bpfagg_drain_fd(42, NCPU, cb, &s), 0);
	assert_int_equal(calls, 1);
	fail_errno = 0;
}

/* Without a loaded program the rest are no-ops. */
static void
test_inactive(void **state)
{
	uint32_t pid;
	uint64_t pc, dev, ino;

	(void)state;
	assert_int_equal(bpfagg_active(), 0);
	assert_int_equal(bpfagg_drain(cb, NULL), 0);
	assert_int_equal(bpfagg_news(&dev, &ino, &pid, &pc), -1);
	bpfagg_file_state(1, 2, BPFAGG_FILE_PASS);
	bpfagg_pass_all(1);
	bpfagg_fini();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_sums),
		cmocka_unit_test(test_drain_empty),
		cmocka_unit_test(test_drain_error),
		cmocka_unit_test(test_inactive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
