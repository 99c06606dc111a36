/*
 * JIT code (jit.h): pending PCs per process, perf maps, pseudo-images per
 * command.
 *
 * A JIT's map is written when it wants: node --perf-basic-prof as it
 * compiles, Java's -XX:+DumpPerfMapAtExit only as it exits.  So samples are
 * kept as raw (event, PC) counts until a map can name them: at each flush
 * when the process has one, at its exit in any case.  The map is read
 * through the process's own root (/proc/PID/root, held open as an O_PATH
 * fd from the first sample, so a container's /tmp is still reachable after
 * the process died) with its pid as its namespace knows it; the host's
 * /tmp/perf-PID.map is the fallback.  Code is moved and reused, so a later
 * line of the map wins where entries overlap; a sample is named by the map
 * of the moment it is resolved, which for a map that only grows is the
 * map of the moment it was taken.
 *
 * A JIT may also write a jitdump (node --perf-prof, Java agents), which it
 * announces by mapping the file executable: the MMAP2 record of a file
 * named jit-<digits>.dump gives its path as the process sees it, read
 * through the process's root like the map.  The mapping is not code (no
 * image is read for it, and the attribution drops the range as if it
 * were data).  Both sources name the pending PCs together, the dump's
 * entries after the map's: the dump tells moves and reloads in order,
 * the map does not.
 *
 * Symbols are kept by name per command and user ("[jit:node]"): every
 * process of a command and real uid adds to one pseudo-image, whose
 * offsets are synthetic (each new symbol takes the next range), and whose
 * id hashes dcpid's start time and a generation so that the layout of one
 * run is never merged with another's in a file.  A user apart: another
 * user's process of the same name cannot fill its offset space or its
 * bounds.  Once no live process uses an image and its counts and perf-map
 * are written, its symbols are freed (jit_reclaim) and the command's next
 * process starts a new generation.
 *
 * Every file read here is written by whoever runs the JIT, so what it
 * costs is bounded (jit.h struct jit_limits): a map's lines are cut as
 * they are read (a 250 KB name is never held whole), names are cut to
 * jit-name-max as they are parsed, and each entry of a map read
 * and each symbol of an image is charged, in bytes and in count, to its
 * process (maps), its user and all JIT code, before it is kept.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include <dcpi/jitdump.h>
#include <dcpi/perfmap.h>

#include "agg.h"
#include "attr.h"
#include "cache.h"
#include "control.h"
#include "fsio.h"
#include "htab.h"
#include "imagetab.h"
#include "jit.h"
#include "log.h"
#include "proc.h"
#include "procstatus.h"
#include "util.h"
#include "xmalloc.h"

#define JIT_MAP_MAX	((size_t)64 << 20)	/* bytes of one perf map */
#define JIT_DUMP_MAX	((size_t)256 << 20)	/* bytes of one jitdump: code too */
#define JIT_SYM_MAX	((uint32_t)16 << 20)	/* synthetic range of one symbol */
#define JIT_ROOTFDS_MAX	256			/* O_PATH fds held at once */
#define JIT_ALIGN	16
#define ANON_NAME	"[anon]"
#define ANON_SIZE	JIT_ALIGN
#define UID_UNKNOWN	((uid_t)-1)
/* A line's fields before its name, with room for blanks: what is read of
 * a perf map's line besides the name kept. */
#define LINE_HEAD	128
/* A cut name's end: "..." and 8 hex digits of a hash of the name read. */
#define CUT_MARK_LEN	11

/* Samples waiting for their symbol are counted in place, as agg.c counts
 * (its comment says why that is not htab): one slot per (pc, event), no
 * allocation per entry. */
struct pend {
	uint64_t	 pc;
	uint32_t	 ev;		/* the stream: event and label */
	uint32_t	 count;		/* 0: empty slot */
};

/* A user's JIT symbols: what its processes' maps read and its images'
 * symbols are charged to. */
struct juser {
	struct juser	*next;
	uid_t		 uid;
	size_t		 bytes, nsyms;
	size_t		 refs;		/* maps and images charged to it */
};

/* A perf map or jitdump as read: entries in file order, those within the
 * bounds. */
struct jmap {
	struct dcpi_perfmap_entry *e;
	size_t		 n;
	uint64_t	 dev, ino, size;
	struct timespec	 mtime;
	uid_t		 owner;
	struct juser	*user;		/* charged cost bytes and n symbols */
	size_t		 cost;
};

/* Both sources' entries, the map's then the dump's, and their indices by
 * start: what resolve() sweeps. */
struct jview {
	const struct dcpi_perfmap_entry **e;
	uint32_t	*bystart;
	size_t		 n;
};

/* A process's JIT part: its jit.c field in the process table
 * (daemon/proc.h), from its first JIT sample, unnamed frame or jitdump
 * to its exit or exec (or a flush that finds it gone). */
struct jproc {
	uint32_t	 pid, nspid;
	int		 rootfd;	/* O_PATH of /proc/PID/root, or -1 */
	int		 uid_known;
	uid_t		 uid[4];	/* real, effective, saved, fs */
	int		 warned;
	char		 comm[16];
	struct pend	*pend;		/* open addressing */
	size_t		 npend, cappend;
	struct jmap	*map, *dump;
	char		*dumppath;	/* as the process sees it */
	struct jview	 view;
	int		 dumpwarned;
	uint64_t	 frame_read_ms;	/* now_ms() of jit_frame's last read */
	int		 unnamed;	/* jit_unnamed since jit_name_again */
	size_t		 symbytes, nsyms;	/* of its maps read, charged */
	int		 boundwarned;
	struct jcmd	*cmd;		/* the image it names samples in now */
};

struct jsym {
	char		*name;
	uint32_t	 start, size;
};

struct jcmd {
	struct jcmd	*next;
	char		 comm[16];
	uid_t		 uid;
	struct juser	*user;		/* charged bytes and nsyms */
	size_t		 bytes;
	size_t		 nprocs;	/* live processes naming samples in it */
	struct img	*img;
	struct jsym	*syms;		/* by start, consecutive */
	size_t		 nsyms, capsyms;
	struct htab	 byname;	/* index in syms + 1 */
	uint32_t	 next_off;
	int		 dirty;		/* perf-map to be (re)written */
};

static size_t		  nrootfds;
static struct jcmd	 *cmds;
static struct juser	 *users;
static struct jit_limits  lim;
static size_t		  mem, npending;	/* mem: all but the symbols */
static size_t		  symbytes, nsymsall;	/* charged: maps read, images */
static size_t		  usermem;
static uint32_t		  cmdgen;
static uint64_t		  ncut, ndropped, ncmdsfreed;
static int		  force;
static char		  runid[64];
static uint64_t		  nsamples, nnamed, nanon, nmaps, nmaperr, nputerr;
static uint64_t		  ndumps, ndumpsread, ndumperr;

/* ---- bounds ---- */

static struct juser *
user_get(uid_t uid)
{
	struct juser *u;

	for (u = users; u != NULL; u = u->next)
		if (u->uid == uid)
			break;
	if (u == NULL) {
		u = xcalloc(1, sizeof(*u));
		u->uid = uid;
		u->next = users;
		users = u;
		usermem += sizeof(*u);
	}
	u->refs++;
	return u;
}

static void
user_put(struct juser *u)
{
	struct juser **up;

	if (u == NULL || --u->refs > 0)
		return;
	for (up = &users; *up != u; up = &(*up)->next)
		;
	*up = u->next;
	usermem -= sizeof(*u);
	free(u);
}

/* The bound that bytes and n more symbols would pass, of p (NULL: no
 * process's), u and all JIT code: its setting's name, its value in *val;
 * NULL when they fit. */
static const char *
over(const struct jproc *p, const struct juser *u, size_t bytes, size_t n,
    size_t *val)
{
	if (p != NULL && p->symbytes + bytes > lim.process_memory)
		return *val = lim.process_memory, "jit-process-memory";
	if (p != NULL && p->nsyms + n > lim.process_symbols)
		return *val = lim.process_symbols, "jit-process-symbols";
	if (u->bytes + bytes > lim.user_memory)
		return *val = lim.user_memory, "jit-user-memory";
	if (u->nsyms + n > lim.user_symbols)
		return *val = lim.user_symbols, "jit-user-symbols";
	if (symbytes + bytes > lim.memory)
		return *val = lim.memory, "jit-memory";
	if (nsymsall + n > lim.symbols)
		return *val = lim.symbols, "jit-symbols";
	return NULL;
}

/* Charges (sign 1) or gives back (-1) bytes and n symbols to p (or none),
 * u and all JIT code. */
static void
charge(struct jproc *p, struct juser *u, size_t bytes, size_t n, int sign)
{
	if (sign < 0) {
		bytes = -bytes;
		n = -n;
	}
	if (p != NULL) {
		p->symbytes += bytes;
		p->nsyms += n;
	}
	u->bytes += bytes;
	u->nsyms += n;
	symbytes += bytes;
	nsymsall += n;
}

/* What an entry of a map read holds with a name of len bytes: the entry,
 * the name, its place in the view, allocator overhead. */
static size_t
entry_cost(size_t len)
{
	return sizeof(struct dcpi_perfmap_entry) + len + 1 + sizeof(void *) +
	    sizeof(uint32_t) + 16;
}

/* What an image's symbol holds: itself (twice: the array doubles), the
 * name, its index entry, allocator overhead. */
static size_t
sym_cost(size_t len)
{
	return 2 * sizeof(struct jsym) + len + 1 + 2 * sizeof(uintptr_t) + 16;
}

/* name[0..len) as kept, malloc'd: whole within lim.name_max bytes, else
 * cut at a character's start and marked (jit.h). */
static char *
name_keep(const char *name, size_t len)
{
	uint64_t h;
	size_t k, i;
	char *s;

	if (len <= lim.name_max) {
		s = xmalloc(len + 1);
		memcpy(s, name, len);
		s[len] = '\0';
		return s;
	}
	k = lim.name_max - CUT_MARK_LEN;
	/* Not inside a UTF-8 sequence (at most 3 continuation bytes). */
	for (i = 0; i < 3 && k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80; i++)
		k--;
	h = fnv1a64(FNV1A64_INIT, name, len);
	s = xmalloc(k + CUT_MARK_LEN + 1);
	memcpy(s, name, k);
	snprintf(s + k, CUT_MARK_LEN + 1, "...%08x", (unsigned)(h ^ (h >> 32)));
	ncut++;
	return s;
}

/* ---- processes ---- */

/* pid's JIT part (daemon/proc.h); NULL if none. */
static struct jproc *
jproc_find(uint32_t pid)
{
	struct proc *p = proc_find(pid, PROC_JIT);

	return p != NULL ? p->jit : NULL;
}

/* NSpid (the pid in the innermost namespace: the name of the map there)
 * and the uids, from /proc/PID/status. */
static void
jproc_status(struct jproc *p)
{
	struct procstatus ps;
	int i;

	if (procstatus_read(p->pid, &ps) == -1)
		return;
	if (ps.have & PROCSTATUS_NSPID)
		p->nspid = ps.nspid;
	if (ps.have & PROCSTATUS_UID) {
		for (i = 0; i < 4; i++)
			p->uid[i] = (uid_t)ps.uid[i];
		p->uid_known = 1;
	}
}

/* The user p's maps and symbols are charged to: its real uid, else the
 * owner of the file they came from (the process was gone before its
 * status was read), else UID_UNKNOWN. */
static uid_t
jproc_uid(const struct jproc *p, uid_t owner)
{
	return p->uid_known ? p->uid[0] : owner;
}

/* p's "pid N (COMM, uid U)" for messages. */
static const char *
jproc_who(const struct jproc *p, uid_t owner, char *buf, size_t len)
{
	uid_t u = jproc_uid(p, owner);

	if (u == UID_UNKNOWN)
		snprintf(buf, len, "pid %u (%s, uid unknown)", p->pid, p->comm);
	else
		snprintf(buf, len, "pid %u (%s, uid %lu)", p->pid, p->comm,
		    (unsigned long)u);
	return buf;
}

static struct jproc *
jproc_new(uint32_t pid)
{
	struct jproc *p;
	const char *comm;
	char path[64];
	FILE *fp;

	p = xcalloc(1, sizeof(*p));
	mem += sizeof(*p);
	p->pid = p->nspid = pid;
	p->rootfd = -1;
	if ((comm = attr_proc_comm(pid)) != NULL)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	else {
		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		if ((fp = fopen(path, "re")) != NULL) {
			if (fgets(p->comm, sizeof(p->comm), fp) == NULL)
				p->comm[0] = '\0';
			fclose(fp);
		}
		p->comm[strcspn(p->comm, "\n")] = '\0';
	}
	if (p->comm[0] == '\0')
		snprintf(p->comm, sizeof(p->comm), "unknown");
	jproc_status(p);
	if (nrootfds < JIT_ROOTFDS_MAX) {
		snprintf(path, sizeof(path), "/proc/%u/root", pid);
		if ((p->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1)
			nrootfds++;
	}
	proc_hold(pid, PROC_JIT)->jit = p;
	return p;
}

/* Frees p's map or dump m, giving back what it was charged. */
static void
map_free(struct jproc *p, struct jmap *m)
{
	if (m == NULL)
		return;
	if (m->user != NULL) {
		charge(p, m->user, m->cost, m->n, -1);
		user_put(m->user);
	}
	mem -= sizeof(*m);
	dcpi_perfmap_free(m->e, m->n);
	free(m);
}

/* The view's memory is charged with its map's entries (entry_cost). */
static void
view_free(struct jview *v)
{
	free(v->e);
	free(v->bystart);
	memset(v, 0, sizeof(*v));
}

/* Frees pr's JIT part; it: the walk (proc_each) that gave pr, or NULL. */
static void
jproc_free(struct proc *pr, struct htab_iter *it)
{
	struct jproc *p = pr->jit;

	pr->jit = NULL;
	proc_release(pr, PROC_JIT, it);
	if (p->rootfd != -1) {
		close(p->rootfd);
		nrootfds--;
	}
	if (p->cmd != NULL)
		p->cmd->nprocs--;
	map_free(p, p->map);
	map_free(p, p->dump);
	view_free(&p->view);
	if (p->dumppath != NULL) {
		mem -= strlen(p->dumppath) + 1;
		free(p->dumppath);
	}
	npending -= p->npend;
	mem -= p->cappend * sizeof(*p->pend) + sizeof(*p);
	free(p->pend);
	free(p);
}

static size_t
pend_slot(uint64_t pc, uint32_t ev, size_t cap)
{
	uint64_t h = (pc ^ ((uint64_t)ev << 56)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static void
pend_add(struct jproc *p, uint32_t ev, uint64_t pc, uint32_t count)
{
	struct pend *old;
	size_t oldcap, i, j;

	if (2 * (p->npend + 1) > p->cappend) {
		old = p->pend;
		oldcap = p->cappend;
		p->cappend = oldcap ? 2 * oldcap : 64;
		p->pend = xcalloc(p->cappend, sizeof(*p->pend));
		mem += (p->cappend - oldcap) * sizeof(*p->pend);
		for (j = 0; j < oldcap; j++) {
			if (old[j].count == 0)
				continue;
			for (i = pend_slot(old[j].pc, old[j].ev, p->cappend);
			    p->pend[i].count; i = (i + 1) & (p->cappend - 1))
				;
			p->pend[i] = old[j];
		}
		free(old);
	}
	for (i = pend_slot(pc, ev, p->cappend); p->pend[i].count;
	    i = (i + 1) & (p->cappend - 1))
		if (p->pend[i].pc == pc && p->pend[i].ev == ev) {
			if (p->pend[i].count <= UINT32_MAX - count)
				p->pend[i].count += count;
			else
				p->pend[i].count = UINT32_MAX;
			return;
		}
	p->pend[i].pc = pc;
	p->pend[i].ev = ev;
	p->pend[i].count = count;
	p->npend++;
	npending++;
}

/* ---- commands: pseudo-images and their symbols ---- */

/* The symbol called name with at least size bytes (capped), allocated at
 * the end of c's offset space when new or larger than before; NULL when
 * the space is full or a new symbol would pass a bound (logged once for
 * p).  p NULL: the image's own [anon], always kept. */
static struct jsym *
cmd_sym(struct jcmd *c, const char *name, uint64_t size, struct jproc *p)
{
	struct htab_iter it;
	struct jsym *s = NULL;
	uint64_t h = fnv1a64_str(FNV1A64_INIT, name);
	const char *bound;
	char who[64];
	uintptr_t v;
	uint32_t sz, start;
	size_t len, cost, val;

	sz = size > JIT_SYM_MAX ? JIT_SYM_MAX : (uint32_t)size;
	for (v = htab_first(&c->byname, h, &it); v != 0;
	    v = htab_next(&c->byname, &it))
		if (strcmp(c->syms[v - 1].name, name) == 0) {
			if (c->syms[v - 1].size >= sz)
				return &c->syms[v - 1];
			/* Replaced below by a larger one. */
			s = &c->syms[v - 1];
			break;
		}
	start = (c->next_off + JIT_ALIGN - 1) & ~(uint32_t)(JIT_ALIGN - 1);
	/* Offsets stay below tsize, UINT32_MAX. */
	if (start < c->next_off || (uint64_t)start + sz >= UINT32_MAX)
		return NULL;
	len = strlen(name);
	cost = sym_cost(len);
	if (p != NULL && (bound = over(NULL, c->user, cost, 1, &val)) != NULL) {
		ndropped++;
		if (!p->boundwarned)
			log_warnx("%s: %s: symbol not kept, over %s %zu: its "
			    "samples go to [anon]", jproc_who(p, c->uid, who,
			    sizeof(who)), c->img->pub.path, bound, val);
		p->boundwarned = 1;
		return NULL;
	}
	charge(NULL, c->user, cost, 1, 1);
	c->bytes += cost;
	if (c->nsyms == c->capsyms) {
		size_t ncap = c->capsyms ? 2 * c->capsyms : 64;

		c->syms = xreallocarray(c->syms, ncap, sizeof(*c->syms));
		c->capsyms = ncap;
	}
	if (s != NULL)
		htab_del(&c->byname, &it);
	s = &c->syms[c->nsyms];
	s->name = xmalloc(len + 1);
	memcpy(s->name, name, len + 1);
	s->start = start;
	s->size = sz;
	c->next_off = start + sz;
	xhtab_add(&c->byname, h, ++c->nsyms);
	c->dirty = 1;
	return s;
}

/* The image of comm's processes of user uid. */
static struct jcmd *
cmd_get(const char *comm, uid_t uid)
{
	struct jcmd *c;
	char path[32], descr[160], *s;
	size_t cost;

	for (c = cmds; c; c = c->next)
		if (c->uid == uid && strcmp(c->comm, comm) == 0)
			return c;
	c = xcalloc(1, sizeof(*c));
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	c->uid = uid;
	c->user = user_get(uid);
	/* The image itself is charged, not refused: [anon] needs it. */
	cost = sizeof(*c) + 64;
	charge(NULL, c->user, cost, 0, 1);
	c->bytes = cost;
	snprintf(path, sizeof(path), "[jit:%s]", comm);
	for (s = path; *s; s++)
		if (*s == '/')
			*s = '_';
	snprintf(descr, sizeof(descr), "jit\n%s\n%s\n%lu\n%u", comm, runid,
	    (unsigned long)uid, ++cmdgen);
	c->img = image_pseudo(NULL, 0, descr, path, 0, UINT32_MAX);
	/* Freed once unused, as images read from files are (jit_reclaim
	 * drops the symbols first). */
	c->img->from_file = 1;
	/* [anon] first, so that it is there when the space is full. */
	cmd_sym(c, ANON_NAME, ANON_SIZE, NULL);
	c->next = cmds;
	cmds = c;
	return c;
}

static void
cmd_free(struct jcmd *c)
{
	size_t i;

	for (i = 0; i < c->nsyms; i++)
		free(c->syms[i].name);
	free(c->syms);
	htab_fini(&c->byname);
	charge(NULL, c->user, c->bytes, c->nsyms, -1);
	user_put(c->user);
	free(c);
}

/* p names its samples in c from now on. */
static void
jproc_use(struct jproc *p, struct jcmd *c)
{
	if (p->cmd == c)
		return;
	if (p->cmd != NULL)
		p->cmd->nprocs--;
	p->cmd = c;
	c->nprocs++;
}

/* The image p names its samples in: its command's now (a runtime may
 * rename itself after its first JIT code, node's process.title), of its
 * user. */
static struct jcmd *
jproc_cmd(struct jproc *p)
{
	struct jcmd *c;
	uid_t owner = p->map ? p->map->owner : p->dump ? p->dump->owner :
	    UID_UNKNOWN;

	c = cmd_get(p->comm, jproc_uid(p, owner));
	jproc_use(p, c);
	return c;
}

/* ---- maps ---- */

/* A map or dump read on a helper (fsio: it may be on a file system that
 * stops answering, a jitdump in an NFS home): the call's own copies of
 * what it needs of the process, and what it found. */
struct srcread {
	uint32_t	 pid, nspid;
	int		 rootfd;	/* the call's dup of the jproc's, or -1 */
	char		*dumppath;	/* the dump's; NULL: the map */
	int		 uid_known;
	uid_t		 uid[4];
	size_t		 max;
	size_t		 head_max;	/* a map's: bytes of a line kept */
	size_t		 keep_max;	/* lines kept up to this many bytes, */
	size_t		 rest;		/* the lines after them counted */
	int		 have;		/* a version is held, of: */
	uint64_t	 dev, ino, size;
	struct timespec	 mtime;
	enum { SR_NONE, SR_BAD, SR_SAME, SR_BIG, SR_READ } result;
	struct stat	 st;
	char		*buf;
	size_t		 len;
	char		 name[PATH_MAX + 64];
};

/* Whether a map or dump owned by owner may be read for r's process: only
 * a file of the process's own user, whatever path led to it.  A user
 * controls every directory of the path (a jitdump in a directory then
 * swapped for a symbolic link; a bind mount over /tmp/perf-PID.map in a
 * user namespace), so the path proves nothing; the owner does: a file the
 * user owns is one the user could read.  Root's files only for root's
 * processes.  A process whose user is not known (gone before its status
 * was read, and its root with it) has only the host's /tmp/perf-PID.map,
 * opened without following a link: the sticky /tmp holds no other user's
 * file there but one made or hard-linked by someone who could read it
 * (fs.protected_hardlinks). */
static int
owner_ok(const struct srcread *r, uid_t owner)
{
	int i;

	if (!r->uid_known)
		return r->dumppath == NULL && r->rootfd == -1;
	for (i = 0; i < 4; i++)
		if (r->uid[i] == owner)
			return 1;
	return 0;
}

/* The map of p open for reading, name set for messages; -1 if none. */
static int
map_open(const struct srcread *p, char *name, size_t namelen)
{
	char rel[64];
	int fd = -1, flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW |
	    O_NOCTTY;
	struct open_how how = { .flags = (uint64_t)flags,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };

	snprintf(rel, sizeof(rel), "tmp/perf-%u.map", p->nspid);
	if (p->rootfd != -1) {
		snprintf(name, namelen, "/proc/%u/root/%s", p->pid, rel);
		/* Symbolic links in the process's tree resolve in its root,
		 * not ours: a /tmp link to /etc cannot make us read the
		 * host's files.  Kernels before 5.6 lack openat2. */
		fd = (int)syscall(SYS_openat2, p->rootfd, rel, &how, sizeof(how));
		if (fd == -1 && errno == ENOSYS)
			fd = openat(p->rootfd, rel, flags);
		if (fd != -1)
			return fd;
	}
	snprintf(name, namelen, "/tmp/perf-%u.map", p->pid);
	return open(name, flags);
}

/* p's jitdump open for reading, name set for messages; -1 if none.  The
 * host's file of that path only when the process's root is not held: in
 * another root the same path is another file. */
static int
dump_open(const struct srcread *p, char *name, size_t namelen)
{
	int fd, flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW |
	    O_NOCTTY;
	struct open_how how = { .flags = (uint64_t)flags,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };

	if (p->dumppath == NULL)
		return -1;
	if (p->rootfd == -1) {
		snprintf(name, namelen, "%s", p->dumppath);
		return open(name, flags);
	}
	snprintf(name, namelen, "/proc/%u/root%s", p->pid, p->dumppath);
	fd = (int)syscall(SYS_openat2, p->rootfd, p->dumppath + 1, &how,
	    sizeof(how));
	if (fd == -1 && errno == ENOSYS)
		fd = openat(p->rootfd, p->dumppath + 1, flags);
	return fd;
}

static int
cmp_start(const void *a, const void *b, void *arg)
{
	const struct dcpi_perfmap_entry **e = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (e[x]->start != e[y]->start)
		return e[x]->start < e[y]->start ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Parses buf's complete lines (read_heads's) a line at a time, skipping
 * malformed ones (a JIT writing its map is not wrong everywhere because
 * one line is), each name cut to lim.name_max: the entries, or NULL
 * with *n 0 when there are none.  Stops where the entries would pass p's
 * own bounds (map_keep drops what passes the rest): *rest is the number
 * of lines left unread, *bound and *val the bound that stopped it. */
static struct dcpi_perfmap_entry *
map_parse(struct jproc *p, const char *buf, size_t len, const char *name,
    size_t *n, size_t *rest, const char **bound, size_t *val)
{
	struct dcpi_perfmap_entry *all = NULL, *e;
	struct dcpi_error de;
	size_t nall = 0, cap = 0, ne, lineno = 0, cost = 0;
	const char *q, *eol, *end = buf + len, *why;
	int bad = 0;

	*rest = 0;
	for (q = buf; q < end; q = eol + 1) {
		lineno++;
		if ((eol = memchr(q, '\n', (size_t)(end - q))) == NULL)
			eol = end;
		if (nall >= lim.process_symbols || cost >= lim.process_memory) {
			*bound = nall >= lim.process_symbols ? "jit-process-symbols" :
			    "jit-process-memory";
			*val = nall >= lim.process_symbols ? lim.process_symbols :
			    lim.process_memory;
			(*rest)++;
			continue;
		}
		/* read_heads cut the line to its fields and the part of the
		 * name that can be kept. */
		if (dcpi_perfmap_parse(q, (size_t)(eol - q), name, &e, &ne,
		    bad ? NULL : &de) == -1) {
			if (!bad && !p->warned) {
				/* Its line number is the file's, not 1. */
				why = strstr(de.msg, ": line 1: ");
				log_warnx("%s: %s: line %zu: %s: skipping malformed "
				    "lines", p->comm, name, lineno, why ? why + 10 :
				    de.msg);
				p->warned = 1;
			}
			bad = 1;
			continue;
		}
		if (ne == 0)
			continue;
		if (nall == cap) {
			cap = cap ? 2 * cap : 64;
			all = xreallocarray(all, cap, sizeof(*all));
		}
		all[nall].start = e[0].start;
		all[nall].size = e[0].size;
		all[nall].name = name_keep(e[0].name, strlen(e[0].name));
		cost += entry_cost(strlen(all[nall].name));
		nall++;
		dcpi_perfmap_free(e, ne);
	}
	if (bad)
		nmaperr++;
	*n = nall;
	return all;
}

/* Keeps of m's entries, in file order, those within p's, its user's and
 * all JIT code's bounds, charging them; drops the rest (rest more were
 * not parsed, over bound), logged once for p. */
static void
map_keep(struct jproc *p, struct jmap *m, const char *name, size_t rest,
    const char *bound, size_t val)
{
	const char *b;
	char who[64];
	size_t i, k, cost;

	m->user = user_get(jproc_uid(p, m->owner));
	for (i = 0; i < m->n; i++) {
		cost = entry_cost(strlen(m->e[i].name));
		if ((b = over(p, m->user, cost, 1, &val)) != NULL) {
			bound = b;
			break;
		}
		charge(p, m->user, cost, 1, 1);
		m->cost += cost;
	}
	if (i == m->n && rest == 0)
		return;
	ndropped += m->n - i + rest;
	if (!p->boundwarned)
		log_warnx("%s: %s: %zu symbols kept, %zu dropped: over %s %zu",
		    jproc_who(p, m->owner, who, sizeof(who)), name, i,
		    m->n - i + rest, bound, val);
	p->boundwarned = 1;
	for (k = i; k < m->n; k++)
		free(m->e[k].name);
	m->n = i;
}

/* A jitdump's entries: those before a bad record too (what a JIT wrote
 * before it went wrong stands), NULL with *n 0 when there are none. */
static struct dcpi_perfmap_entry *
dump_parse(struct jproc *p, const char *buf, size_t len, const char *name,
    size_t *n)
{
	struct dcpi_perfmap_entry *e;
	struct dcpi_error de;

	char *cut;
	size_t i, len0;

	if (dcpi_jitdump_parse(buf, len, name, &e, n, &de) == -1) {
		if (errno == ENOMEM)
			fatalx("%s: out of memory", name);
		ndumperr++;
		if (!p->dumpwarned)
			log_warnx("%s: %s: using the %zu entries before it",
			    p->comm, de.msg, *n);
		p->dumpwarned = 1;
	}
	for (i = 0; i < *n; i++)
		if ((len0 = strlen(e[i].name)) > lim.name_max) {
			cut = name_keep(e[i].name, len0);
			free(e[i].name);
			e[i].name = cut;
		}
	return e;
}

static void
heads_add(struct srcread *r, const char *p, size_t n, size_t *cap)
{
	if (r->len + n > *cap) {
		while (r->len + n > *cap)
			*cap = *cap ? 2 * *cap : 65536;
		r->buf = xreallocarray(r->buf, *cap, 1);
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

/* A perf map's lines (as far as its size when stat'ed) into r->buf, each
 * cut to r->head_max bytes, up to r->keep_max bytes of them; the
 * complete lines after those only counted, in r->rest.  The map is any
 * user's: a 64 MB file of a few names costs what is kept of it, not 64
 * MB (and map_parse stops at the same bound). */
static void
read_heads(struct srcread *r, int fd)
{
	char chunk[65536];
	const char *q, *nl, *end;
	size_t cap = 0, line = 0, left = (size_t)r->st.st_size, seg, k;
	ssize_t n;
	int full = 0;

	while (left > 0) {
		n = read(fd, chunk, left < sizeof(chunk) ? left : sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		left -= (size_t)n;
		for (q = chunk, end = chunk + n; q < end; q = nl + 1) {
			nl = memchr(q, '\n', (size_t)(end - q));
			seg = (size_t)((nl ? nl : end) - q);
			if (!full && line < r->head_max) {
				k = seg < r->head_max - line ? seg : r->head_max - line;
				heads_add(r, q, k, &cap);
			}
			line += seg;
			if (nl == NULL)
				break;
			line = 0;
			if (full)
				r->rest++;
			else {
				heads_add(r, "\n", 1, &cap);
				full = r->len >= r->keep_max;
			}
		}
	}
	if (r->buf == NULL)
		r->buf = xmalloc(1);
}

/* Reads p's perf map (dump 0) or jitdump (dump 1) unless the one held is
 * current: 1 when read anew, 0 when the one held stands, -1 when there is
 * none. */
static void
srcread_run(void *a)
{
	struct srcread *r = a;
	ssize_t n;
	int fd;

	fd = r->dumppath ? dump_open(r, r->name, sizeof(r->name)) :
	    map_open(r, r->name, sizeof(r->name));
	r->result = SR_NONE;
	if (fd == -1)
		return;
	if (fstat(fd, &r->st) == -1 || !S_ISREG(r->st.st_mode) ||
	    !owner_ok(r, r->st.st_uid))
		r->result = SR_BAD;
	else if (r->have && r->dev == (uint64_t)r->st.st_dev &&
	    r->ino == (uint64_t)r->st.st_ino && r->size == (uint64_t)r->st.st_size &&
	    r->mtime.tv_sec == r->st.st_mtim.tv_sec &&
	    r->mtime.tv_nsec == r->st.st_mtim.tv_nsec)
		r->result = SR_SAME;
	else if ((uint64_t)r->st.st_size > r->max)
		r->result = SR_BIG;
	else if (r->dumppath == NULL) {
		read_heads(r, fd);
		r->result = SR_READ;
	} else {
		r->buf = xmalloc((size_t)r->st.st_size + 1);
		while (r->len < (size_t)r->st.st_size &&
		    ((n = read(fd, r->buf + r->len, (size_t)r->st.st_size - r->len)) > 0 ||
		    (n == -1 && errno == EINTR)))
			if (n > 0)
				r->len += (size_t)n;
		r->result = SR_READ;
	}
	close(fd);
}

static void
srcread_late(void *a)
{
	struct srcread *r = a;

	if (r->rootfd != -1)
		close(r->rootfd);
	free(r->dumppath);
	free(r->buf);
	free(r);
}

/* Reads p's map (dump 0) or jitdump (1) unless the one held is current:
 * 1 read anew, 0 the one held stays, -1 none. */
static int
src_refresh(struct jproc *p, int dump)
{
	struct jmap *m, **mp = dump ? &p->dump : &p->map;
	struct srcread *r;
	const char *bound = NULL;
	char *buf, *name;
	struct stat st;
	size_t len, rest = 0, val = 0;
	int *warned = dump ? &p->dumpwarned : &p->warned;

	r = xcalloc(1, sizeof(*r));
	r->pid = p->pid;
	r->nspid = p->nspid;
	r->rootfd = p->rootfd == -1 ? -1 : fcntl(p->rootfd, F_DUPFD_CLOEXEC, 0);
	if (p->rootfd != -1 && r->rootfd == -1) {
		free(r);
		return *mp ? 0 : -1;
	}
	r->dumppath = dump ? xstrdup(p->dumppath) : NULL;
	r->uid_known = p->uid_known;
	memcpy(r->uid, p->uid, sizeof(r->uid));
	r->max = dump ? JIT_DUMP_MAX : JIT_MAP_MAX;
	r->head_max = lim.name_max + LINE_HEAD;
	/* Never less than map_parse keeps: an entry costs more than its
	 * line's fields and name. */
	r->keep_max = lim.process_memory;
	if ((m = *mp) != NULL) {
		r->have = 1;
		r->dev = m->dev;
		r->ino = m->ino;
		r->size = m->size;
		r->mtime = m->mtime;
	}
	if (fsio_call(fsio_key(dump ? p->dumppath : "/tmp"), srcread_run,
	    srcread_late, r, FSIO_DEADLINE_MS) == -1) {
		if (errno == EAGAIN)
			srcread_late(r);
		if (!*warned)
			log_warnx("pid %u: its %s: the file system did not answer in time: "
			    "read again later", p->pid, dump ? "jitdump" : "perf map");
		*warned = 1;
		return *mp ? 0 : -1;
	}
	name = r->name;
	st = r->st;
	switch (r->result) {
	case SR_NONE:
		srcread_late(r);
		return *mp ? 0 : -1;
	case SR_BAD:
		if (!*warned)
			log_warnx("%s: ignored: not a regular file owned by pid "
			    "%u's user (%s, owner uid %ju)", name, p->pid,
			    !p->uid_known ? "the process's user is not known" :
			    S_ISREG(st.st_mode) ? "another user's" : "not a regular file",
			    (uintmax_t)st.st_uid);
		*warned = 1;
		srcread_late(r);
		return *mp ? 0 : -1;
	case SR_SAME:
		srcread_late(r);
		return 0;
	case SR_BIG:
		if (!*warned)
			log_warnx("%s: %jd bytes, more than the limit of %zu: "
			    "ignored", name, (intmax_t)st.st_size, r->max);
		*warned = 1;
		srcread_late(r);
		return *mp ? 0 : -1;
	case SR_READ:
		break;
	}
	buf = r->buf;
	len = r->len;
	m = xcalloc(1, sizeof(*m));
	mem += sizeof(*m);
	if (dump) {
		/* The parser stops at a record cut short. */
		m->e = dump_parse(p, buf, len, name, &m->n);
		ndumpsread++;
	} else {
		/* A map being written may end mid-line. */
		while (len > 0 && buf[len - 1] != '\n')
			len--;
		m->e = map_parse(p, buf, len, name, &m->n, &rest, &bound, &val);
		if (r->rest > 0) {
			rest += r->rest;
			bound = "jit-process-memory";
			val = lim.process_memory;
		}
		nmaps++;
	}
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	m->size = (uint64_t)st.st_size;
	m->mtime = st.st_mtim;
	m->owner = st.st_uid;
	/* The old version's charge given back before the new one's. */
	map_free(p, *mp);
	*mp = NULL;
	map_keep(p, m, name, rest, bound, val);
	*mp = m;
	log_debug("%s (pid %u, %s): %zu symbols", name, p->pid, p->comm, m->n);
	srcread_late(r);
	return 1;
}

/* Reads p's map and dump unless those held are current, and makes the
 * view of both.  0 when p has either. */
static int
map_refresh(struct jproc *p)
{
	struct jview *v = &p->view;
	size_t i, n = 0;
	int changed;

	changed = src_refresh(p, 0) == 1;
	if (p->dumppath != NULL && src_refresh(p, 1) == 1)
		changed = 1;
	if (p->map == NULL && p->dump == NULL)
		return -1;
	if (!changed && v->e != NULL)
		return 0;
	view_free(v);
	v->n = (p->map ? p->map->n : 0) + (p->dump ? p->dump->n : 0);
	v->e = xreallocarray(NULL, v->n ? v->n : 1, sizeof(*v->e));
	v->bystart = xreallocarray(NULL, v->n ? v->n : 1, sizeof(*v->bystart));
	if (p->map)
		for (i = 0; i < p->map->n; i++)
			v->e[n++] = &p->map->e[i];
	if (p->dump)
		for (i = 0; i < p->dump->n; i++)
			v->e[n++] = &p->dump->e[i];
	for (i = 0; i < v->n; i++)
		v->bystart[i] = (uint32_t)i;
	qsort_r(v->bystart, v->n, sizeof(*v->bystart), cmp_start, v->e);
	return 0;
}

/* ---- resolution ---- */

static int
cmp_pc(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Max-heap of view indices: the latest entry first. */
static void
heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++, up;

	for (; i > 0 && h[up = (i - 1) / 2] < v; i = up)
		h[i] = h[up];
	h[i] = v;
}

static void
heap_pop(uint32_t *h, size_t *n)
{
	uint32_t v = h[--*n];
	size_t i = 0, c;

	for (; (c = 2 * i + 1) < *n; i = c) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
	}
	h[i] = v;
}

static void
count(const struct jcmd *c, uint32_t ev, uint32_t off, uint32_t n)
{
	while (n-- > 0)
		agg_add(ev, c->img->pub.index, off);
}

/* Moves p's pending samples into the aggregation: named by p's map where
 * it has one, the rest under [anon].  Sweeps the PCs in order against the
 * entries by start, keeping the entries begun in a heap by their order in
 * the view, so the latest entry covering a PC names it.  Unless final, the
 * PCs a jitdump does not name yet stay pending: its writers buffer it
 * (node's dump lacked half the code that had run at a flush), and the
 * process's exit, or the memory cap, names them or gives them [anon]. */
static void
resolve(struct jproc *p, int final)
{
	struct jcmd *c;
	struct pend *v;
	struct jview *m = &p->view;
	const struct dcpi_perfmap_entry *e;
	const struct jsym *s;
	uint32_t anon;
	const char *comm;
	uint32_t *heap = NULL;
	size_t nv = 0, i, k = 0, nh = 0, nkeep = 0;
	int wait = !final && p->dump != NULL;

	if (p->npend == 0)
		return;
	/* The name now, not at the first sample: a runtime may rename
	 * itself after its first JIT code (node's process.title). */
	if ((comm = attr_proc_comm(p->pid)) != NULL)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	c = jproc_cmd(p);
	/* Its offset, not a pointer: cmd_sym below may move c->syms. */
	anon = c->syms[0].start;
	v = xreallocarray(NULL, p->npend, sizeof(*v));
	for (i = 0; i < p->cappend; i++)
		if (p->pend[i].count)
			v[nv++] = p->pend[i];
	qsort(v, nv, sizeof(*v), cmp_pc);
	if (m->n)
		heap = xreallocarray(NULL, m->n, sizeof(*heap));
	for (i = 0; i < nv; i++) {
		s = NULL;
		if (heap) {
			while (k < m->n && m->e[m->bystart[k]]->start <= v[i].pc)
				heap_push(heap, &nh, m->bystart[k++]);
			/* Entries ended before this PC end before the next. */
			while (nh > 0 && m->e[heap[0]]->start +
			    m->e[heap[0]]->size <= v[i].pc)
				heap_pop(heap, &nh);
			if (nh > 0) {
				e = m->e[heap[0]];
				s = cmd_sym(c, e->name, e->size, p);
				if (s && v[i].pc - e->start >= s->size)
					s = NULL;
				if (s) {
					count(c, v[i].ev, s->start +
					    (uint32_t)(v[i].pc - e->start), v[i].count);
					nnamed += v[i].count;
					continue;
				}
			}
		}
		if (wait) {
			v[nkeep++] = v[i];
			continue;
		}
		count(c, v[i].ev, anon, v[i].count);
		nanon += v[i].count;
	}
	free(heap);
	npending -= p->npend;
	p->npend = 0;
	memset(p->pend, 0, p->cappend * sizeof(*p->pend));
	for (i = 0; i < nkeep; i++)
		pend_add(p, v[i].ev, v[i].pc, v[i].count);
	free(v);
}

/* Writes c's symbols as its perf-map in the build-id cache. */
static void
write_map(struct jcmd *c)
{
	char err[512], *buf;
	size_t len = 0, cap = 4096, i;
	int n;

	buf = xmalloc(cap);
	for (i = 0; i < c->nsyms; i++) {
		for (;;) {
			n = snprintf(buf + len, cap - len, "%x %x %s\n",
			    c->syms[i].start, c->syms[i].size, c->syms[i].name);
			if (n >= 0 && (size_t)n < cap - len)
				break;
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		len += (size_t)n;
	}
	if (cache_put(c->img->pub.id, "perf-map", buf, len, err, sizeof(err)) == -1) {
		nputerr++;
		log_warnx("jit %s: %s", c->img->pub.path, err);
	} else
		c->dirty = 0;
	free(buf);
}

/* ---- the interface ---- */

static void
jit_comm_hook(uint32_t pid, uint32_t tid, const char *comm, int exec)
{
	(void)tid;
	(void)comm;
	if (exec)
		jit_exit(pid, pid);
}

static void
jit_exit_hook(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)ppid;
	(void)ptid;
	jit_exit(pid, tid);
}

static const struct proc_hooks jit_hooks = { NULL, jit_comm_hook, jit_exit_hook };

void
jit_init(void)
{
	static const struct jit_limits defaults = {
		JIT_NAME_MAX_DEFAULT, JIT_MEMORY_DEFAULT, JIT_USER_MEMORY_DEFAULT,
		JIT_PROCESS_MEMORY_DEFAULT, JIT_SYMBOLS_DEFAULT,
		JIT_USER_SYMBOLS_DEFAULT, JIT_PROCESS_SYMBOLS_DEFAULT
	};
	struct timespec ts;

	lim = defaults;
	proc_set_hooks(PROC_JIT, &jit_hooks);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(runid, sizeof(runid), "%lld.%09ld %ld", (long long)ts.tv_sec,
	    ts.tv_nsec, (long)getpid());
}

void
jit_fini(void)
{
	struct htab_iter it;
	struct proc *p;
	struct jcmd *c, *next;

	proc_set_hooks(PROC_JIT, NULL);
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_JIT, &it)) != NULL)
		jproc_free(p, &it);
	for (c = cmds; c; c = next) {
		next = c->next;
		cmd_free(c);
	}
	cmds = NULL;
	mem = npending = 0;
	symbytes = nsymsall = usermem = 0;
	force = 0;
	nsamples = nnamed = nanon = nmaps = nmaperr = nputerr = 0;
	ndumps = ndumpsread = ndumperr = 0;
	ncut = ndropped = ncmdsfreed = 0;
}

void
jit_set_limits(const struct jit_limits *l)
{
	lim = *l;
	/* Room for a mark and a little of the name. */
	if (lim.name_max < 64)
		lim.name_max = 64;
}

void
jit_streams(void (*cb)(uint32_t stream, void *arg), void *arg)
{
	struct htab_iter it;
	struct proc *pr;
	struct jproc *p;
	size_t i;

	memset(&it, 0, sizeof(it));
	while ((pr = proc_each(PROC_JIT, &it)) != NULL) {
		p = pr->jit;
		for (i = 0; i < p->cappend; i++)
			if (p->pend[i].count != 0)
				cb(p->pend[i].ev, arg);
	}
}

void
jit_sample(uint32_t ev, uint32_t pid, uint64_t pc)
{
	struct jproc *p;

	if ((p = jproc_find(pid)) == NULL)
		p = jproc_new(pid);
	pend_add(p, ev, pc, 1);
	nsamples++;
}

/* How many entries starting at or before a PC jit_frame looks at for one
 * that covers it (a view's entries seldom nest deeper), and how often a
 * miss may read the map again. */
#define FRAME_SCAN	64
#define FRAME_REREAD_MS	5000

/* The entry of m that names pc: the latest in the view of those that
 * cover it, as resolve() picks; NULL if none. */
static const struct dcpi_perfmap_entry *
frame_entry(const struct jview *m, uint64_t pc)
{
	const struct dcpi_perfmap_entry *e, *best = NULL;
	size_t lo = 0, hi = m->n, mid, k, n;
	uint32_t bi = 0;

	/* The last entry by start at or before pc, then back from it. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->e[m->bystart[mid]]->start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo, n = 0; k > 0 && n < FRAME_SCAN; k--, n++) {
		e = m->e[m->bystart[k - 1]];
		if (pc - e->start < e->size && (best == NULL || m->bystart[k - 1] > bi)) {
			best = e;
			bi = m->bystart[k - 1];
		}
	}
	return best;
}

int
jit_frame(uint32_t pid, uint64_t pc, struct image **img, uint32_t *off)
{
	const struct dcpi_perfmap_entry *e;
	const struct jsym *s;
	struct jproc *p;
	struct jcmd *c;
	uint64_t now;

	if ((p = jproc_find(pid)) == NULL)
		return -1;
	if ((e = frame_entry(&p->view, pc)) == NULL) {
		/* Code compiled since the map was read: read again if it
		 * changed, FRAME_REREAD_MS apart at most (a runtime's map
		 * grows all the time, and is read whole). */
		now = (uint64_t)now_ms();
		if (p->frame_read_ms != 0 && now - p->frame_read_ms < FRAME_REREAD_MS)
			return -1;
		p->frame_read_ms = now;
		if (map_refresh(p) == -1 || (e = frame_entry(&p->view, pc)) == NULL)
			return -1;
	}
	if (p->comm[0] == '\0') {
		const char *comm = attr_proc_comm(pid);

		snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
	}
	c = jproc_cmd(p);
	if ((s = cmd_sym(c, e->name, e->size, p)) == NULL || pc - e->start >= s->size)
		return -1;
	*img = &c->img->pub;
	*off = s->start + (uint32_t)(pc - e->start);
	return 0;
}

void
jit_each_pid(void (*cb)(uint32_t pid, void *arg), void *arg)
{
	struct htab_iter it;
	struct proc *p;

	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_JIT, &it)) != NULL)
		cb(p->pid, arg);
}

void
jit_unnamed(uint32_t pid)
{
	struct jproc *p;

	if ((p = jproc_find(pid)) == NULL)
		p = jproc_new(pid);
	p->unnamed = 1;
}

int
jit_name_again(uint32_t pid)
{
	struct jproc *p;

	if ((p = jproc_find(pid)) == NULL || !p->unnamed)
		return 0;
	p->unnamed = 0;
	p->frame_read_ms = (uint64_t)now_ms();
	return map_refresh(p) == 0;
}

int
jit_is_dump(const char *path)
{
	const char *b = strrchr(path, '/'), *q;

	b = b ? b + 1 : path;
	if (strncmp(b, "jit-", 4) != 0)
		return 0;
	for (q = b + 4; *q >= '0' && *q <= '9'; q++)
		;
	return q > b + 4 && strcmp(q, ".dump") == 0;
}

int
jit_mmap(const struct attr_mmap *m)
{
	struct jproc *p;
	size_t len;

	if (!(m->prot & PROT_EXEC) || m->filename[0] != '/' ||
	    !jit_is_dump(m->filename))
		return 0;
	if ((p = jproc_find(m->pid)) == NULL)
		p = jproc_new(m->pid);
	if (p->dumppath == NULL || strcmp(p->dumppath, m->filename) != 0) {
		if (p->dumppath != NULL)
			mem -= strlen(p->dumppath) + 1;
		free(p->dumppath);
		len = strlen(m->filename);
		p->dumppath = xmalloc(len + 1);
		memcpy(p->dumppath, m->filename, len + 1);
		mem += len + 1;
		map_free(p, p->dump);
		p->dump = NULL;
		view_free(&p->view);
		p->dumpwarned = 0;
		ndumps++;
		log_debug("%s (pid %u, %s): jitdump announced", m->filename,
		    p->pid, p->comm);
	}
	return 1;
}

void
jit_exit_arrival(uint32_t pid)
{
	struct jproc *p;

	if ((p = jproc_find(pid)) != NULL)
		map_refresh(p);
}

void
jit_exit(uint32_t pid, uint32_t tid)
{
	struct proc *pr;
	struct jproc *p;

	if (pid != tid || (pr = proc_find(pid, PROC_JIT)) == NULL)
		return;
	p = pr->jit;
	if (p->npend > 0)
		map_refresh(p);
	resolve(p, 1);
	jproc_free(pr, NULL);
}

void
jit_release(void)
{
	force = 1;
}

void
jit_flush(void)
{
	struct htab_iter it;
	struct proc *pr;
	struct jproc *p;
	struct jcmd *c;
	char path[64];
	int gone;

	memset(&it, 0, sizeof(it));
	while ((pr = proc_each(PROC_JIT, &it)) != NULL) {
		p = pr->jit;
		snprintf(path, sizeof(path), "/proc/%u", p->pid);
		/* Its EXIT lost with the ring buffer's overflow. */
		gone = access(path, F_OK) == -1 && errno == ENOENT;
		if (p->npend > 0 && (map_refresh(p) == 0 || force || gone))
			resolve(p, force || gone);
		if (gone)
			jproc_free(pr, &it);
		else if (force) {
			/* Over the memory cap: give back what the
			 * process's next samples can rebuild. */
			map_free(p, p->map);
			map_free(p, p->dump);
			view_free(&p->view);
			p->map = p->dump = NULL;
			mem -= p->cappend * sizeof(*p->pend);
			free(p->pend);
			p->pend = NULL;
			p->cappend = 0;
		}
	}
	force = 0;
	for (c = cmds; c; c = c->next)
		if (c->dirty)
			write_map(c);
}

void
jit_reclaim(void)
{
	struct jcmd **cp, *c;

	for (cp = &cmds; (c = *cp) != NULL; ) {
		if (c->nprocs == 0 && !c->dirty) {
			*cp = c->next;
			cmd_free(c);
			ncmdsfreed++;
			continue;
		}
		attr_image_used(c->img->pub.index);
		cp = &c->next;
	}
}

size_t
jit_memory(void)
{
	return mem + symbytes + usermem;
}

size_t
jit_count_memory(void)
{
	return mem;
}

size_t
jit_pending(void)
{
	return npending;
}

void
jit_status(struct status_writer *w)
{
	status_add(w, "jit", "samples %ju", (uintmax_t)nsamples);
	status_add(w, "jit", "named %ju", (uintmax_t)nnamed);
	status_add(w, "jit", "anon %ju", (uintmax_t)nanon);
	status_add(w, "jit", "pending-pcs %zu", npending);
	status_add(w, "jit", "processes %zu", proc_count(PROC_JIT));
	status_add(w, "jit", "maps-read %ju", (uintmax_t)nmaps);
	status_add(w, "jit", "map-errors %ju", (uintmax_t)nmaperr);
	status_add(w, "jit", "dumps %ju", (uintmax_t)ndumps);
	status_add(w, "jit", "dumps-read %ju", (uintmax_t)ndumpsread);
	status_add(w, "jit", "dump-errors %ju", (uintmax_t)ndumperr);
	status_add(w, "jit", "perf-map-errors %ju", (uintmax_t)nputerr);
	status_add(w, "jit", "names-cut %ju", (uintmax_t)ncut);
	status_add(w, "jit", "symbols-dropped %ju", (uintmax_t)ndropped);
	status_add(w, "jit", "images-freed %ju", (uintmax_t)ncmdsfreed);
	status_add(w, "jit-symbols", "%zu bytes of %zu, %zu symbols of %zu",
	    symbytes, lim.memory, nsymsall, lim.symbols);
	status_add(w, "memory-jit", "%zu", jit_memory());
}
