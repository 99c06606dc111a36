/*
 * Labels: the sample's label number, from a run label or the cgroup
 * (daemon/labeler.h).  Two tables: the label numbers (names, dense, by
 * name through a hash) and the cgroups met (id -> name and the number it
 * had this epoch); and the run of each process of a `dcpictl label` run,
 * its labeler.c field in the process table (daemon/proc.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/label.h>

#include "cgroup.h"
#include "conf.h"
#include "control.h"
#include "htab.h"
#include "labeler.h"
#include "log.h"
#include "proc.h"
#include "util.h"
#include "xmalloc.h"

/* Cgroups remembered; past it the table starts again (the cgroups still
 * sampled are looked up again in /proc), so a storm of short-lived
 * cgroups costs a bounded memory. */
#define LABEL_CGROUPS_MAX	16384
/* cgroup keys of the samples without a cgroup id: per process. */

struct slot {
	char		*name;		/* NULL: free */
	uint32_t	 used;		/* gen of the epoch it was last used in */
};

struct cgent {
	uint64_t	 key;		/* cgroup id, or LABEL_KEY_PID | pid */
	char		*name;		/* NULL: unlabelled */
	char		*abspath;	/* PERF_RECORD_CGROUP's, until named */
	uint32_t	 l, gen;	/* its number, valid while gen is */
};

struct label_run {
	unsigned	 refs;		/* processes */
	uint32_t	 l, gen;
	char		 name[];
};

static unsigned		 by = CONF_LABEL_BY_UNIT;
static size_t		 max = 1000;
static struct slot	*slots;
static size_t		 nslots;	/* slots[0..nslots) in use or free */
static uint32_t		*freel;		/* free numbers */
static size_t		 nfree;
static struct htab	 byname;	/* fnv1a64(name) -> number */
static uint32_t		 gen = 1;
static size_t		 nused, ndropped;
static uint64_t		 nother;
static size_t		 names_bytes;

static struct htab	 cgroups;	/* key -> struct cgent * */
static char		*nsroot;	/* learned (label_cgroup); "" outside one */
static char		 cgmount[4096];	/* the cgroup2 mount, "" if none */
struct label_recent	 label_recent[LABEL_RECENT];
uint32_t		 label_fast_gen = LABEL_GEN_SLOW;

/* The last cgroup not found in /proc: the next FAILED_SKIP samples of it
 * (a process gone, its samples still queued) do not look again. */
#define FAILED_SKIP	64
static uint64_t		 failed_key;
static unsigned		 failed_skip;


static const char *const by_names[] = { "none", "unit", "cgroup" };

/* p leaves its run (freed with its last process); it: the walk
 * (proc_each) that gave p, or NULL. */
static void
run_drop(struct proc *p, struct htab_iter *it)
{
	if (--p->run->refs == 0)
		free(p->run);
	p->run = NULL;
	proc_release(p, PROC_LABEL, it);
}

/* label_of's fast path answers only while no process has a run label
 * (whose samples look their pid up) and label-by is not none. */
static void
fast_update(void)
{
	label_fast_gen = proc_count(PROC_LABEL) == 0 && by != CONF_LABEL_BY_NONE ?
	    gen : LABEL_GEN_SLOW;
}

static void
label_fork_hook(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)tid;
	(void)ptid;
	label_fork(pid, ppid);
}

static void
label_comm_hook(uint32_t pid, uint32_t tid, const char *comm, int exec)
{
	(void)tid;
	(void)comm;
	if (exec)
		label_exec(pid);
}

static void
label_exit_hook(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)ppid;
	(void)ptid;
	if (pid == tid)
		label_exit(pid);
}

static const struct proc_hooks label_hooks = {
	label_fork_hook, label_comm_hook, label_exit_hook
};

void
label_init(unsigned b, unsigned m)
{
	proc_set_hooks(PROC_LABEL, &label_hooks);
	by = b;
	max = m ? m : 1;
	gen = 1;
	nused = ndropped = 0;
	nother = 0;
	memset(label_recent, 0, sizeof(label_recent));
	fast_update();
}

static size_t
cg_bytes(const struct cgent *e)
{
	return (e->name ? strlen(e->name) + 1 : 0) +
	    (e->abspath ? strlen(e->abspath) + 1 : 0);
}

static void
cg_free(struct cgent *e)
{
	names_bytes -= cg_bytes(e);
	free(e->name);
	free(e->abspath);
	free(e);
}

static void
cgroups_clear(void)
{
	struct htab_iter it;
	uintptr_t v;

	memset(&it, 0, sizeof(it));
	while ((v = htab_each(&cgroups, &it)) != 0) {
		cg_free((struct cgent *)v);
	}
	htab_fini(&cgroups);
	htab_init(&cgroups);
	memset(label_recent, 0, sizeof(label_recent));
}

void
label_configure(unsigned b, unsigned m)
{
	if (b != by) {
		by = b;
		cgroups_clear();
		label_scan();
	}
	max = m ? m : 1;
	fast_update();
}

void
label_fini(void)
{
	struct htab_iter it;
	struct proc *p;
	size_t i;

	proc_set_hooks(PROC_LABEL, NULL);
	cgroups_clear();
	cgmount[0] = '\0';
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_LABEL, &it)) != NULL)
		run_drop(p, &it);
	for (i = 0; i < nslots; i++)
		free(slots[i].name);
	free(slots);
	free(freel);
	slots = NULL;
	freel = NULL;
	nslots = nfree = 0;
	names_bytes = 0;
	htab_fini(&byname);
	free(nsroot);
	nsroot = NULL;
	fast_update();
}

/*
 * Label numbers.
 */

static uint32_t
find_name(const char *name, uint64_t h, struct htab_iter *it)
{
	uintptr_t v;

	for (v = htab_first(&byname, h, it); v != 0; v = htab_next(&byname, it))
		if (strcmp(slots[v].name, name) == 0)
			return (uint32_t)v;
	return 0;
}

/*
 * Labels of `dcpictl label` runs may exceed label-max by RUN_RESERVE: a
 * user asked for each by name, and a storm of cgroups that fills the
 * epoch's numbers must not send them to [other].  The reserve still bounds
 * memory should a user start runs by the thousand.
 */
#define RUN_RESERVE	64

/* The number of name this epoch: its own while label-max (plus extra)
 * allows, else LABEL_OTHER (counted once per cgroup or run and epoch, by
 * the caller's caching). */
static uint32_t
intern(const char *name, size_t extra)
{
	uint64_t h = fnv1a64_str(FNV1A64_INIT, name);
	struct htab_iter it;
	uint32_t l;

	if ((l = find_name(name, h, &it)) == 0) {
		if (nused >= max + extra)
			goto drop;
		if (nfree > 0) {
			l = freel[--nfree];
		} else {
			/* Numbers used this epoch (max and the reserve)
			 * and kept from the last (as many) fit in twice
			 * that. */
			if (nslots >= LABEL_FIRST + 2 * (max + RUN_RESERVE))
				goto drop;
			if (nslots == 0) {
				/* dcpid's own, named by label_name. */
				slots = xcalloc(LABEL_FIRST, sizeof(*slots));
				nslots = LABEL_FIRST;
			}
			slots = xreallocarray(slots, nslots + 1, sizeof(*slots));
			l = (uint32_t)nslots++;
		}
		slots[l].name = xstrdup(name);
		slots[l].used = 0;
		names_bytes += strlen(name) + 1;
		xhtab_add(&byname, h, l);
	}
	if (slots[l].used != gen) {
		if (nused >= max + extra)
			goto drop;
		slots[l].used = gen;
		nused++;
	}
	return l;
drop:
	ndropped++;
	return LABEL_OTHER;
}

const char *
label_name(uint32_t l)
{
	switch (l) {
	case LABEL_NONE:
		return NULL;
	case LABEL_IDLE:
		return DCPI_LABEL_IDLE;
	case LABEL_OTHER:
		return DCPI_LABEL_OTHER;
	}
	return l < nslots && slots[l].name != NULL ? slots[l].name : DCPI_LABEL_OTHER;
}

void
label_keep(uint32_t l)
{
	if (l >= LABEL_FIRST && l < nslots && slots[l].name != NULL)
		slots[l].used = gen;
}

void
label_new_epoch(void)
{
	struct htab_iter it;
	uint32_t l;

	for (l = LABEL_FIRST; l < nslots; l++) {
		if (slots[l].name == NULL || slots[l].used == gen)
			continue;
		if (find_name(slots[l].name, fnv1a64_str(FNV1A64_INIT,
		    slots[l].name), &it) == l)
			htab_del(&byname, &it);
		names_bytes -= strlen(slots[l].name) + 1;
		free(slots[l].name);
		slots[l].name = NULL;
		freel = xreallocarray(freel, nfree + 1, sizeof(*freel));
		freel[nfree++] = l;
	}
	gen++;
	nused = ndropped = 0;
	fast_update();
}

/*
 * Cgroups.
 */

static struct cgent *
cg_find(uint64_t key, struct htab_iter *it)
{
	uintptr_t v;

	for (v = htab_first(&cgroups, key, it); v != 0; v = htab_next(&cgroups, it))
		if (((struct cgent *)v)->key == key)
			return (struct cgent *)v;
	return NULL;
}

/* key's entry, new or emptied, its number to be decided again. */
static struct cgent *
cg_entry(uint64_t key)
{
	struct htab_iter it;
	struct cgent *e;

	if ((e = cg_find(key, &it)) == NULL) {
		if (cgroups.n >= LABEL_CGROUPS_MAX)
			cgroups_clear();
		e = xcalloc(1, sizeof(*e));
		e->key = key;
		xhtab_add(&cgroups, key, (uintptr_t)e);
	} else {
		names_bytes -= cg_bytes(e);
		free(e->name);
		free(e->abspath);
		e->name = e->abspath = NULL;
	}
	e->gen = 0;
	if (label_recent_of(key)->key == key)
		label_recent_of(key)->gen = 0;
	return e;
}

/* Remembers key's name (NULL: unlabelled), replacing what was known. */
static struct cgent *
cg_set(uint64_t key, const char *name)
{
	struct cgent *e = cg_entry(key);

	e->name = name ? xstrdup(name) : NULL;
	names_bytes += cg_bytes(e);
	return e;
}

static void
cg_forget(uint64_t key)
{
	struct htab_iter it;
	struct cgent *e;

	if ((e = cg_find(key, &it)) == NULL)
		return;
	htab_del(&cgroups, &it);
	cg_free(e);
	if (label_recent_of(key)->key == key)
		label_recent_of(key)->gen = 0;
}

/* path's label by label-by into name[len]; NULL when it gets none. */
static const char *
path_label(const char *path, char *name, size_t len)
{
	return cgroup_label(path, (enum cgroup_label_by)by, name, len) == 1 ? name : NULL;
}

/*
 * A PERF_RECORD_CGROUP's path is the kernel's, from the hierarchy's root,
 * where /proc/PID/cgroup and the cgroup2 mount give paths from dcpid's
 * cgroup namespace (in a container: /payload/system.slice/x.service
 * against /system.slice/x.service).  The record's path is kept until a
 * sample of the cgroup reads /proc, which also shows the namespace's
 * root: the difference of the two, after which records are named alone.
 */
void
label_cgroup(uint64_t id, const char *path)
{
	struct cgent *e;

	if (by == CONF_LABEL_BY_NONE || id == 0)
		return;
	e = cg_entry(id);
	e->abspath = xstrdup(path);
	names_bytes += cg_bytes(e);
}

static void
learn_nsroot(const char *abspath, const char *rel)
{
	size_t la = strlen(abspath), lr = strcmp(rel, "/") == 0 ? 0 : strlen(rel);

	if (nsroot != NULL || la < lr || strcmp(abspath + la - lr, rel) != 0)
		return;
	nsroot = xstrdup(abspath);
	nsroot[la - lr] = '\0';
	if (strcmp(nsroot, "/") == 0)
		nsroot[0] = '\0';
	if (nsroot[0] != '\0')
		log_info("labels: dcpid's cgroup namespace is %s of the hierarchy", nsroot);
}

void
label_cgroup_arrival(uint64_t id, const char *abspath)
{
	char path[8192];
	const char *s;
	uint64_t got;

	if (nsroot != NULL || cgmount[0] == '\0' || by == CONF_LABEL_BY_NONE ||
	    abspath[0] != '/')
		return;
	/* The suffix of the kernel's path that is this very cgroup below
	 * the mount: what comes before it is the namespace's root. */
	for (s = abspath; s != NULL; s = strchr(s + 1, '/')) {
		snprintf(path, sizeof(path), "%s%s", cgmount, s);
		if (cgroup_path_id(path, &got) == 0 && got == id) {
			learn_nsroot(abspath, s);
			return;
		}
	}
}

/* A kernel path from the namespace's root, as far as it is known. */
static const char *
ns_path(const char *abspath)
{
	size_t n;

	if (nsroot == NULL || (n = strlen(nsroot)) == 0 ||
	    strncmp(abspath, nsroot, n) != 0 || (abspath[n] != '/' && abspath[n] != '\0'))
		return abspath;
	return abspath[n] == '\0' ? "/" : abspath + n;
}

/* The first sample of a cgroup known by a record: named from the record
 * once the namespace's root is known, else from /proc when its process is
 * there and inside the namespace (which teaches the root), else from the
 * record as it is. */
static struct cgent *
cg_name_record(struct cgent *e, uint32_t pid)
{
	char rel[4096], name[LABEL_NAME_MAX], *abspath = e->abspath;
	const char *p;

	e->abspath = NULL;
	names_bytes -= strlen(abspath) + 1;
	/* The namespace's root known, the record names the cgroup: /proc
	 * names the process's cgroup now, which it may have left (a process
	 * that moves on from cgroup to cgroup). */
	if (nsroot == NULL && cgroup_read_pid(pid, rel, sizeof(rel)) == 1 &&
	    strncmp(rel, "/..", 3) != 0) {
		learn_nsroot(abspath, rel);
		p = rel;
	} else {
		p = ns_path(abspath);
	}
	e = cg_set(e->key, path_label(p, name, sizeof(name)));
	free(abspath);
	return e;
}

/* The walk's paths are from the mount, i.e. the namespace's root. */
static void
scan_one(uint64_t id, const char *path, void *arg)
{
	char name[LABEL_NAME_MAX];

	(void)arg;
	if (id != 0)
		cg_set(id, path_label(path, name, sizeof(name)));
}

void
label_scan(void)
{
	char mount[4096];

	if (by == CONF_LABEL_BY_NONE)
		return;
	if (cgroup_mount(mount, sizeof(mount)) != 1) {
		log_info("labels: no cgroup2 hierarchy mounted; cgroups are "
		    "read from /proc/PID/cgroup as their processes are sampled");
		return;
	}
	snprintf(cgmount, sizeof(cgmount), "%s", mount);
	if (cgroup_walk(mount, LABEL_CGROUPS_MAX / 2, scan_one, NULL) == -1)
		log_warn("labels: %s", mount);
}

/* A cgroup met first in a sample: its name from the process's
 * /proc/PID/cgroup.  A process already gone leaves nothing to remember
 * (its cgroup's next sample tries again). */
static uint32_t __attribute__((noinline))
cg_slow(uint32_t pid, uint64_t key)
{
	char path[4096], name[LABEL_NAME_MAX];
	struct label_recent *r = label_recent_of(key);
	struct htab_iter it;
	struct cgent *e;

	if ((e = cg_find(key, &it)) == NULL) {
		if (key == failed_key && failed_skip-- > 0)
			return LABEL_NONE;
		if (cgroup_read_pid(pid, path, sizeof(path)) == 1) {
			e = cg_set(key, path_label(path, name, sizeof(name)));
		} else if (key & LABEL_KEY_PID) {
			/* Gone: its EXIT record forgets it. */
			e = cg_set(key, NULL);
		} else {
			/* Not remembered: another process may still name the
			 * cgroup.  A run of samples of this one is answered
			 * without reading /proc again. */
			failed_key = key;
			failed_skip = FAILED_SKIP;
			return LABEL_NONE;
		}
	}
	if (e->abspath != NULL)
		e = cg_name_record(e, pid);
	if (e->gen != gen) {
		e->l = e->name != NULL ? intern(e->name, 0) : LABEL_NONE;
		e->gen = gen;
	}
	/* [other] takes this path, which counts its samples. */
	if (e->l != LABEL_OTHER)
		*r = (struct label_recent){ key, e->l, gen };
	return e->l;
}

/*
 * Runs.
 */

static uint32_t
run_label(struct label_run *r)
{
	if (r->gen != gen) {
		r->l = intern(r->name, RUN_RESERVE);
		r->gen = gen;
	}
	return r->l;
}

static void
run_set(uint32_t pid, struct label_run *r)
{
	struct proc *p;

	if ((p = proc_find(pid, PROC_LABEL)) != NULL) {
		if (--p->run->refs == 0)
			free(p->run);
	} else
		p = proc_hold(pid, PROC_LABEL);
	p->run = r;
	r->refs++;
	fast_update();
}

int
label_run(uint32_t pid, const char *name, char *msg, size_t msglen)
{
	size_t n = strlen(name);
	struct label_run *r;

	if (pid == 0 || n == 0 || name[0] == '[' || n >= LABEL_NAME_MAX) {
		snprintf(msg, msglen, "label '%s' for pid %u: not a label", name,
		    (unsigned)pid);
		return -1;
	}
	r = xcalloc(1, sizeof(*r) + n + 1);
	memcpy(r->name, name, n + 1);
	run_set(pid, r);
	log_info("label %s: pid %u and the processes it starts", name, (unsigned)pid);
	return 0;
}

void
label_fork(uint32_t pid, uint32_t ppid)
{
	struct proc *parent;

	if (pid == ppid || proc_count(PROC_LABEL) == 0)
		return;
	if ((parent = proc_find(ppid, PROC_LABEL)) != NULL)
		run_set(pid, parent->run);
}

void
label_exec(uint32_t pid)
{
	cg_forget(LABEL_KEY_PID | pid);
}

void
label_exit(uint32_t pid)
{
	struct proc *p;

	cg_forget(LABEL_KEY_PID | pid);
	if (proc_count(PROC_LABEL) == 0 || (p = proc_find(pid, PROC_LABEL)) == NULL)
		return;
	run_drop(p, NULL);
	fast_update();
}

/*
 * The sample path.
 */

uint32_t
label_of_slow(uint32_t pid, uint64_t cgroup)
{
	struct label_recent *r;
	struct proc *p;
	uint64_t key;
	uint32_t l;

	if (proc_count(PROC_LABEL) > 0 && (p = proc_find(pid, PROC_LABEL)) != NULL) {
		l = run_label(p->run);
	} else if (by == CONF_LABEL_BY_NONE) {
		return LABEL_NONE;
	} else {
		key = cgroup ? cgroup : LABEL_KEY_PID | pid;
		r = label_recent_of(key);
		l = r->key == key && r->gen == gen ? r->l : cg_slow(pid, key);
	}
	if (l == LABEL_OTHER)
		nother++;
	return l;
}

void
label_stats(struct label_stats *st)
{
	st->by = by_names[by < 3 ? by : 0];
	st->used = nused;
	st->max = max;
	st->dropped = ndropped;
	st->other_samples = nother;
	st->running = proc_count(PROC_LABEL);
	st->cgroups = cgroups.n;
	st->memory = nslots * sizeof(*slots) + nfree * sizeof(*freel) +
	    htab_memory(&byname) + htab_memory(&cgroups) +
	    cgroups.n * sizeof(struct cgent) + names_bytes;
}

void
label_status(struct status_writer *w)
{
	struct label_stats ls;

	label_stats(&ls);
	status_add(w, "label-by", "%s", ls.by);
	status_add(w, "labels", "%zu of %zu this epoch, %zu dropped to [other] "
	    "(%ju samples since start)", ls.used, ls.max, ls.dropped,
	    (uintmax_t)ls.other_samples);
	status_add(w, "labels-running", "%zu processes", ls.running);
	status_add(w, "labels-cgroups", "%zu", ls.cgroups);
}
