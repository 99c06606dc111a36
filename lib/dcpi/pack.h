/*
 * libdcpi: packed epochs (dcpi(5) "Packed epochs").
 *
 * An epoch that has ended is packed: each host directory's files (the
 * profiles of every event and label, the stack file, the unattributed
 * file, kallsyms.ref or an older epoch's kallsyms copy) become one file,
 * HOST/pack.gz, a single gzip stream of a text index and the files' bytes.
 * One file instead of a hundred small ones saves the 4 KiB block each
 * small file takes, and one stream compresses the profiles' repeated
 * headers together (bench/README "Disk: packed epochs").
 *
 * Readers need not know: dcpi_read_file (file.h) of a path below a
 * packed host directory that is not on disk reads the member of that
 * path, and dcpi_db_list (db.h) lists the members' names with the files on
 * disk, so the profile, stack and unattributed readers read packed and
 * loose files alike.  A loose file wins over a member of the same path (a
 * crash between writing the pack and removing the loose files leaves
 * both, with the same bytes).
 *
 * The uncompressed stream ("dcpi-pack 1"):
 *
 *     dcpi-pack 1\n
 *     file SIZE PATH\n          one line per file, PATH sorted (strcmp)
 *     files N\n
 *     data\n
 *     the N files' bytes, in the order of the lines, nothing after
 *
 * SIZE is decimal bytes, PATH the file's path below the host directory:
 * components joined by '/', none empty, none starting with '.', no
 * newline; paths unique, and none a directory of another.
 *
 * Errors: int functions return 0, or -1 with errno (EINVAL for a malformed
 * pack, naming the file and the byte offset in the uncompressed stream or,
 * for bad gzip data, in the file; EFBIG past DCPI_PACK_MAX; ENOMEM; the
 * errno of a failed system call) and a one-line message in err.
 */
#ifndef DCPI_PACK_H
#define DCPI_PACK_H

#include <stddef.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The packed host directory's one file, and its first line. */
#define DCPI_PACK_FILE		"pack.gz"
#define DCPI_PACK_MAGIC		"dcpi-pack 1"
/* The most a pack holds uncompressed, in bytes (zlib counts in 32 bits). */
#define DCPI_PACK_MAX		((size_t)1 << 30)

struct dcpi_pack_entry {
	char	*path;		/* below the host directory; owned by the pack */
	size_t	 off;		/* of its bytes in dcpi_pack.data */
	size_t	 size;		/* bytes */
};

/* A pack in memory; everything freed by dcpi_pack_free. */
struct dcpi_pack {
	char			*data;	/* the uncompressed stream, NUL after it */
	size_t			 len;
	struct dcpi_pack_entry	*v;	/* sorted by path (strcmp) */
	size_t			 n;
};

/* Parses an uncompressed stream buf[0..len) (a copy is kept); name names
 * it in messages.  *out is a new pack the caller frees, NULL on error. */
int dcpi_pack_parse(const void *buf, size_t len, const char *name,
    struct dcpi_pack **out, struct dcpi_error *err);
/* Reads the gzip file at path (symbolic link not followed), decompresses
 * it (at most DCPI_PACK_MAX bytes) and parses it.  ENOENT when there is
 * none. */
int dcpi_pack_read(const char *path, struct dcpi_pack **out,
    struct dcpi_error *err);
void dcpi_pack_free(struct dcpi_pack *p);
/* The member of path (below the host directory), or NULL. */
const struct dcpi_pack_entry *dcpi_pack_find(const struct dcpi_pack *p,
    const char *path);

/* One file to pack: its path below the host directory and its bytes. */
struct dcpi_pack_file {
	const char	*path;
	const void	*buf;
	size_t		 len;
};
/* The uncompressed stream of files f[0..n) (any order; paths as the
 * parser takes them) into *buf (malloc'd, caller frees), *len bytes.
 * -1/EINVAL for a bad or repeated path, EFBIG past DCPI_PACK_MAX. */
int dcpi_pack_encode(const struct dcpi_pack_file *f, size_t n, void **buf,
    size_t *len, struct dcpi_error *err);

/* What dcpi_db_compress did: host directories packed, loose files put
 * into packs, and their bytes before and the packs' bytes after. */
struct dcpi_compress_stats {
	size_t		hosts;
	size_t		files;
	unsigned long long bytes_in;
	unsigned long long bytes_out;
};

/*
 * Packs every host directory of DB/EPOCH that holds loose files: reads
 * them (and the pack already there, whose members the loose files
 * replace), writes HOST/pack.gz atomically (temporary file, fsync, rename,
 * fsync of the directory; the host directory's read permissions), then
 * removes the loose files and the directories left empty.  A crash leaves
 * the loose files, the pack, or both, each read alike; running it again
 * finishes the work.  Hidden files (a writer's temporary ".NAME.XXXXXX")
 * and anything but regular files and directories are left alone.
 * -1/EBUSY for the current epoch (dcpid is writing it), ENOENT for no such
 * epoch, or the error of the first host that failed (the others are still
 * done); st (may be NULL) counts what was done.
 */
int dcpi_db_compress(const char *db, const char *epoch,
    struct dcpi_compress_stats *st, struct dcpi_error *err);

/* 1 if path is a directory on disk or in a pack (a prefix of its members'
 * paths), else 0. */
int dcpi_db_isdir(const char *path);

#ifdef __cplusplus
}
#endif
#endif
