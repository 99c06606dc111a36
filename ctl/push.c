/*
 * dcpictl push --to clickhouse://HOST:PORT/DATABASE: epochs of the local
 * database into a ClickHouse store (dcpi-clickhouse(5)), each (host,
 * epoch) exactly once.
 *
 * Exactly once without transactions: a push writes its rows tagged with a
 * fresh push id, and only after every batch was stored a row in pushes.
 * Queries count the rows of the first completed push of each (host, epoch)
 * only, so the rows of a push cut short (server killed, connection
 * refused) are never counted, and a repeated push completes.  The local
 * database is only read.
 */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include <dcpi/db.h>
#include <dcpi/symbol.h>

#include "analysis.h"
#include "clickhouse.h"
#include "commands.h"
#include "xmalloc.h"

/* A batch: one INSERT of at most this many rows (--batch-rows) or about
 * this many bytes, whichever comes first. */
#define BATCH_ROWS	65536
#define BATCH_BYTES	(8u << 20)

/* The pending rows of one table: RowBinary, sent as one INSERT. */
struct batch {
	const char	*table;
	struct ch_buf	 rows;
	size_t		 n;
};

struct pusher {
	struct ch	 c;
	const char	*db;
	size_t		 batch_rows;
	/* One batch per table, so that the images of a push share INSERTs:
	 * each INSERT is a part on the server, the unit of its merges. */
	struct batch	 samples, procs, other;
	uint64_t	 n_rows;	/* of this push, stored */
	uint64_t	 n_batches;
	char		**have_procs;	/* images the store has procedures of */
	size_t		 n_have, cap_have;
};

static int
flush_rows(struct pusher *p, struct batch *b)
{
	char sql[256];

	if (b->n == 0)
		return 0;
	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s FORMAT RowBinary", p->c.url.db, b->table);
	/* On a cluster the completion row must follow rows already stored
	 * on their shards, not queued on the entry server. */
	if (ch_query(&p->c, sql, b->rows.p, b->rows.len, p->c.url.cluster ?
	    "insert_distributed_sync=1" : NULL, NULL) == -1)
		return -1;
	p->n_rows += b->n;
	p->n_batches++;
	b->rows.len = 0;
	b->n = 0;
	return 0;
}

static int
row_done(struct pusher *p, struct batch *b)
{
	b->n++;
	if (b->n >= p->batch_rows || b->rows.len >= BATCH_BYTES)
		return flush_rows(p, b);
	return 0;
}

static int
cstr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
have_procs(const struct pusher *p, const char *image)
{
	return p->n_have > 0 &&
	    bsearch(&image, p->have_procs, p->n_have, sizeof(char *), cstr_cmp) != NULL;
}

static void
add_have(struct pusher *p, const char *image)
{
	size_t i;

	if (have_procs(p, image))
		return;
	if (p->n_have == p->cap_have) {
		p->cap_have = p->cap_have ? 2 * p->cap_have : 64;
		p->have_procs = xreallocarray(p->have_procs, p->cap_have, sizeof(char *));
	}
	for (i = p->n_have; i > 0 && strcmp(p->have_procs[i - 1], image) > 0; i--)
		p->have_procs[i] = p->have_procs[i - 1];
	p->have_procs[i] = xstrdup(image);
	p->n_have++;
}

/* The images the store already names the procedures of. */
static int
load_have(struct pusher *p)
{
	struct ch_buf q = { 0 }, ans = { 0 };
	char *s, *end, *f[1];
	int r;

	ch_printf(&q, "SELECT DISTINCT image FROM %s.procedures", p->c.url.db);
	if ((r = ch_query(&p->c, (char *)q.p, NULL, 0, NULL, &ans)) == 0) {
		s = (char *)ans.p;
		end = s + ans.len;
		while (ch_tsv_line(&s, end, f, 1) == 1)
			add_have(p, f[0]);
	}
	chb_free(&q);
	chb_free(&ans);
	return r;
}

struct procrow {
	uint64_t	 start, size;
	const char	*name;
	int		 looked_up;	/* what prof's lookups named: wins a tie */
};

static int
procrow_cmp(const void *a, const void *b)
{
	const struct procrow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return y->looked_up - x->looked_up;
}

/* The procedures of one image: every symbol (one per start), the names
 * prof's lookups gave first. */
static int
push_procs(struct pusher *p, const char *imageid, const struct dcpi_symtab *t,
    struct procrow *used, size_t n_used)
{
	const struct dcpi_symbol *sym;
	struct procrow *v;
	size_t n_sym = 0, n, i;
	int r = 0;

	sym = t != NULL ? dcpi_symtab_symbols(t, &n_sym) : NULL;
	v = xcalloc(n_sym + n_used + 1, sizeof(*v));
	if (n_used > 0)
		memcpy(v, used, n_used * sizeof(*v));
	for (i = 0, n = n_used; i < n_sym; i++)
		if (sym[i].start < CH_PROC_UNKNOWN) {
			v[n].start = sym[i].start;
			v[n].size = sym[i].size;
			v[n++].name = sym[i].name;
		}
	qsort(v, n, sizeof(*v), procrow_cmp);
	for (i = 0; i < n && r == 0; i++) {
		if (i > 0 && v[i].start == v[i - 1].start)
			continue;
		chb_str(&p->procs.rows, imageid);
		chb_u32(&p->procs.rows, (uint32_t)v[i].start);
		chb_u64(&p->procs.rows, v[i].size);
		chb_str(&p->procs.rows, v[i].name);
		r = row_done(p, &p->procs);
	}
	free(v);
	return r;
}

static uint64_t
new_push_id(void)
{
	uint64_t id = 0;

	while (id == 0)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)clock();
	return id;
}

/* The fixed head of a samples row, then its offset, count and period. */
static void
sample_row(struct pusher *p, const char *event, const char *imageid, const char *name,
    uint32_t proc, const char *host, uint32_t etime, const char *epoch, const char *label,
    uint32_t offset, uint64_t count, uint64_t period, uint64_t push_id)
{
	chb_str(&p->samples.rows, event);
	chb_str(&p->samples.rows, imageid);
	chb_str(&p->samples.rows, name);
	chb_u32(&p->samples.rows, proc);
	chb_str(&p->samples.rows, host);
	chb_u32(&p->samples.rows, etime);
	chb_str(&p->samples.rows, epoch);
	chb_str(&p->samples.rows, label);
	chb_u32(&p->samples.rows, offset);
	chb_u64(&p->samples.rows, count);
	chb_u64(&p->samples.rows, period);
	chb_u64(&p->samples.rows, push_id);
}

/* One (host, epoch): its samples, unattributed samples, the procedures
 * the store lacks, then the completion row.  -1 after printing why. */
static int
push_one(struct pusher *p, const char *epoch, const char *host)
{
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;
	struct symcache *sc;
	struct procrow *used = NULL;
	size_t n_used, cap_used = 0, i, k;
	const char *pick[1] = { epoch };
	uint64_t push_id = new_push_id(), samples = 0;
	time_t et;
	uint32_t etime;
	int rc = -1;

	if (dcpi_epoch_parse(epoch, &et) == -1 || et < 0 || et > (time_t)UINT32_MAX) {
		fprintf(stderr, "dcpictl: push: %s/%s: not an epoch name\n", p->db, epoch);
		return -1;
	}
	etime = (uint32_t)et;
	memset(&f, 0, sizeof(f));
	f.epochs = pick;
	f.n_epochs = 1;
	f.host = host;
	f.idle = 1;
	if (dcpi_dataset_load(p->db, &f, &d, &err) == -1) {
		fprintf(stderr, "dcpictl: push: %s\n", err.msg);
		return -1;
	}
	/* A partial epoch marked complete would hide the rest for good. */
	if (d->n_skipped > 0) {
		for (i = 0; i < d->n_skipped; i++)
			fprintf(stderr, "dcpictl: push: %s/%s: %s\n", epoch, host, d->skipped[i]);
		fprintf(stderr, "dcpictl: push: %s %s: not pushed: %zu unreadable file%s\n",
		    epoch, host, d->n_skipped, d->n_skipped > 1 ? "s" : "");
		dcpi_dataset_free(d);
		return -1;
	}
	sc = symcache_new();
	p->n_rows = p->n_batches = 0;
	for (i = 0; i < d->n_images; i++) {
		const struct dcpi_dataset_image *im = &d->images[i];
		const char *name = image_name(im->prof);
		const char *id = im->prof->image ? im->prof->image : name;
		const char *label = sel_label_name(im->label);
		const char *event = d->events[im->event].name;
		const struct dcpi_symbol *prev = NULL, *sym;
		struct dcpi_symtab *t;
		char stalename[512];
		uint32_t proc;
		int stale, need = !have_procs(p, id);

		t = symcache_get(sc, im, &stale);
		n_used = 0;
		/* The procedure of each offset as prof's rows_dataset finds it:
		 * runs within the previous symbol, else a lookup. */
		for (k = 0; k < im->prof->n_counts; k++) {
			const struct dcpi_count *cn = &im->prof->counts[k];
			const char *pname = NULL;
			uint64_t start = CH_PROC_UNKNOWN, size = 1;

			if (t == NULL && stale) {
				snprintf(stalename, sizeof(stalename), "%s+0x%x", name, cn->offset);
				start = cn->offset;
				pname = stalename;
			} else if (t != NULL && prev != NULL && cn->offset - prev->start < prev->size) {
				start = prev->start;
			} else if (t != NULL && (sym = dcpi_symtab_lookup(t, cn->offset)) != NULL &&
			    sym->start < CH_PROC_UNKNOWN) {
				prev = sym;
				start = sym->start;
				pname = sym->name;
				size = sym->size;
			} else
				prev = NULL;
			proc = (uint32_t)start;
			if (pname != NULL && need) {
				if (n_used == cap_used) {
					cap_used = cap_used ? 2 * cap_used : 256;
					used = xreallocarray(used, cap_used, sizeof(*used));
				}
				used[n_used].start = start;
				used[n_used].size = size;
				used[n_used].name = pname == stalename ? xstrdup(pname) : pname;
				used[n_used++].looked_up = pname == stalename ? 2 : 1;
			}
			sample_row(p, event, id, name, proc, host, etime, epoch, label, cn->offset,
			    cn->count, im->prof->period, push_id);
			samples += cn->count;
			if (row_done(p, &p->samples) == -1)
				goto fail;
		}
		if (need) {
			if (push_procs(p, id, t, used, n_used) == -1)
				goto fail;
			add_have(p, id);
		}
		for (k = 0; k < n_used; k++)
			if (used[k].looked_up == 2)
				free((char *)used[k].name);
	}
	if (flush_rows(p, &p->samples) == -1 || flush_rows(p, &p->procs) == -1)
		goto fail;
	p->other.table = "unattributed";
	for (i = 0; i < d->unattr.n; i++) {
		chb_str(&p->other.rows, host);
		chb_u32(&p->other.rows, etime);
		chb_str(&p->other.rows, epoch);
		chb_str(&p->other.rows, d->unattr.v[i].event);
		chb_str(&p->other.rows, d->unattr.v[i].reason);
		chb_u64(&p->other.rows, d->unattr.v[i].samples);
		chb_u64(&p->other.rows, push_id);
		if (row_done(p, &p->other) == -1)
			goto fail;
	}
	if (flush_rows(p, &p->other) == -1)
		goto fail;
	/* Complete: only now does any query count the rows above. */
	p->other.table = "pushes";
	chb_str(&p->other.rows, host);
	chb_str(&p->other.rows, epoch);
	chb_u32(&p->other.rows, etime);
	chb_u64(&p->other.rows, push_id);
	chb_u32(&p->other.rows, (uint32_t)time(NULL));
	chb_u64(&p->other.rows, p->n_rows);
	chb_u32(&p->other.rows, CH_SCHEMA_VERSION);
	p->other.n = 1;
	if (flush_rows(p, &p->other) == -1)
		goto fail;
	printf("%s %s: pushed %llu rows, %llu samples in %llu batches (push %016llx)\n",
	    epoch, host, (unsigned long long)p->n_rows - 1, (unsigned long long)samples,
	    (unsigned long long)p->n_batches - 1, (unsigned long long)push_id);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "dcpictl: push: %s %s: %s; not complete (its %llu rows stored "
	    "are not counted; push again)\n", epoch, host, p->c.err,
	    (unsigned long long)p->n_rows);
	if (used != NULL)
		for (k = 0; k < n_used; k++)
			if (used[k].looked_up == 2)
				free((char *)used[k].name);
out:
	p->samples.rows.len = p->procs.rows.len = p->other.rows.len = 0;
	p->samples.n = p->procs.n = p->other.n = 0;
	free(used);
	symcache_free(sc);
	dcpi_dataset_free(d);
	return rc;
}

/* The (host, epoch) pairs the store has a completed push of, as
 * "EPOCH\tHOST" sorted. */
static int
load_done(struct pusher *p, char ***done, size_t *n)
{
	struct ch_buf q = { 0 }, ans = { 0 };
	char *s, *end, *f[2];
	size_t cap = 0;
	int r;

	*done = NULL;
	*n = 0;
	ch_printf(&q, "SELECT epoch, host FROM %s.pushes GROUP BY epoch, host", p->c.url.db);
	if ((r = ch_query(&p->c, (char *)q.p, NULL, 0, NULL, &ans)) == 0) {
		s = (char *)ans.p;
		end = s + ans.len;
		while (ch_tsv_line(&s, end, f, 2) == 2) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				*done = xreallocarray(*done, cap, sizeof(char *));
			}
			xasprintf(&(*done)[(*n)++], "%s\t%s", f[0], f[1]);
		}
		if (*n > 1)
			qsort(*done, *n, sizeof(char *), cstr_cmp);
	}
	chb_free(&q);
	chb_free(&ans);
	return r;
}

/* The host directories of DB/EPOCH. */
static int
epoch_hosts(const char *db, const char *epoch, char ***hosts, size_t *n)
{
	struct dcpi_error err;
	char path[4096], **v;
	struct stat st;
	size_t i, k;

	snprintf(path, sizeof(path), "%s/%s", db, epoch);
	if (dcpi_db_list(path, &v, n, &err) == -1) {
		fprintf(stderr, "dcpictl: push: %s\n", err.msg);
		return -1;
	}
	for (i = k = 0; i < *n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", db, epoch, v[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			v[k++] = v[i];
		else
			free(v[i]);
	}
	*n = k;
	*hosts = v;
	return 0;
}

#define PUSH_USAGE \
	"usage: dcpictl push --to clickhouse://HOST[:PORT]/DATABASE[?cluster=NAME[&http_port=P]]\n" \
	"                    [--epoch E]... [--all] [--host H] [--batch-rows N]\n" \
	"Without --epoch or --all: the newest epoch that is not the current one.\n"

int
cmd_push(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to",		required_argument,	NULL, 't' },
		{ "epoch",	required_argument,	NULL, 'E' },
		{ "all",	no_argument,		NULL, 'A' },
		{ "host",	required_argument,	NULL, 'H' },
		{ "batch-rows",	required_argument,	NULL, 'b' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct pusher p;
	struct dcpi_error err;
	const char *to = NULL, *host = NULL, *epochs[SEL_MAX];
	char **all = NULL, **done = NULL, **hosts, cur[DCPI_EPOCH_LEN + 1], *key;
	size_t n_epochs = 0, n_all = 0, n_done = 0, n_hosts, i, j;
	size_t n_pushed = 0, n_skip = 0, n_failed = 0;
	int ch, do_all = 0, rc = 1, have_cur;
	char *end;

	memset(&p, 0, sizeof(p));
	p.db = g->db;
	p.samples.table = "samples";
	p.procs.table = "procedures";
	p.batch_rows = BATCH_ROWS;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 't': to = optarg; break;
		case 'E':
			if (n_epochs == SEL_MAX) {
				fprintf(stderr, "dcpictl: push: more than %d --epoch\n", SEL_MAX);
				return 2;
			}
			epochs[n_epochs++] = optarg;
			break;
		case 'A': do_all = 1; break;
		case 'H': host = optarg; break;
		case 'b':
			p.batch_rows = strtoul(optarg, &end, 10);
			if (*optarg == '-' || *end != '\0' || p.batch_rows == 0) {
				fprintf(stderr, "dcpictl: push: --batch-rows %s: expected a "
				    "number of rows above 0\n", optarg);
				return 2;
			}
			break;
		default:
			return cmd_usage(ch == 'h', PUSH_USAGE);
		}
	}
	if (optind != argc || to == NULL)
		return cmd_usage(0, PUSH_USAGE);
	if (n_epochs > 0 && do_all) {
		fprintf(stderr, "dcpictl: push: --epoch and --all exclude each other\n");
		return 2;
	}
	if (dcpi_db_epochs(g->db, &all, &n_all, &err) == -1) {
		fprintf(stderr, "dcpictl: push: %s\n", err.msg);
		return 1;
	}
	have_cur = dcpi_db_current(g->db, cur, NULL) == 0;
	for (i = 0; i < n_epochs; i++) {
		for (j = 0; j < n_all && strcmp(all[j], epochs[i]) != 0; j++)
			;
		if (j == n_all) {
			fprintf(stderr, "dcpictl: push: %s: no epoch %s\n", g->db, epochs[i]);
			goto out;
		}
	}
	/* The current epoch is still being written: only when named. */
	if (n_epochs == 0 && !do_all) {
		for (i = n_all; i > 0 && n_epochs == 0; i--)
			if (!have_cur || strcmp(all[i - 1], cur) != 0)
				epochs[n_epochs++] = all[i - 1];
		if (n_epochs == 0) {
			fprintf(stderr, "dcpictl: push: %s: no epoch that is not the current "
			    "one (--epoch %s pushes that)\n", g->db, have_cur ? cur : "E");
			goto out;
		}
	}
	if (ch_open(&p.c, to) == -1 || ch_schema(&p.c) == -1 || load_have(&p) == -1 ||
	    load_done(&p, &done, &n_done) == -1) {
		fprintf(stderr, "dcpictl: push: %s\n", p.c.err);
		goto out;
	}
	for (i = 0; i < n_all; i++) {
		/* --all walks every epoch (not the current); else the chosen. */
		const char *e = all[i];
		if (do_all) {
			if (have_cur && strcmp(e, cur) == 0)
				continue;
		} else {
			for (j = 0; j < n_epochs && strcmp(epochs[j], e) != 0; j++)
				;
			if (j == n_epochs)
				continue;
		}
		if (epoch_hosts(g->db, e, &hosts, &n_hosts) == -1) {
			n_failed++;
			continue;
		}
		for (j = 0; j < n_hosts; j++) {
			if (host != NULL && strcmp(host, hosts[j]) != 0)
				continue;
			xasprintf(&key, "%s\t%s", e, hosts[j]);
			if (n_done > 0 &&
			    bsearch(&key, done, n_done, sizeof(char *), cstr_cmp) != NULL) {
				printf("%s %s: already pushed, nothing to do\n", e, hosts[j]);
				n_skip++;
			} else if (push_one(&p, e, hosts[j]) == 0)
				n_pushed++;
			else
				n_failed++;
			free(key);
		}
		dcpi_strv_free(hosts, n_hosts);
	}
	printf("pushed %zu, already there %zu, failed %zu (host, epoch) to %s\n",
	    n_pushed, n_skip, n_failed, to);
	if (n_pushed + n_skip + n_failed == 0)
		fprintf(stderr, "dcpictl: push: nothing to push%s%s\n",
		    host ? " of host " : "", host ? host : "");
	rc = n_failed > 0 || n_pushed + n_skip == 0;
out:
	ch_close(&p.c);
	chb_free(&p.samples.rows);
	chb_free(&p.procs.rows);
	chb_free(&p.other.rows);
	for (i = 0; i < p.n_have; i++)
		free(p.have_procs[i]);
	free(p.have_procs);
	dcpi_strv_free(done, n_done);
	dcpi_strv_free(all, n_all);
	return rc;
}
