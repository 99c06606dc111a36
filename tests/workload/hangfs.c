/*
 * A file system whose server stops answering, as a hung NFS server or a
 * FUSE server stuck does: hangfs SRC FLAG MOUNTPOINT [fuse options]
 * mounts one file, /prog, with SRC's contents (mode 0755); while the file
 * FLAG exists every request about it (lookup, attributes, open, read)
 * waits until FLAG is gone.  Entries and attributes are cached for 0.1 s
 * only, so that a hang reaches even a stat.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *src, *flag;
static int srcfd = -1;

static void
hang(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (access(flag, F_OK) == 0)
		nanosleep(&ts, NULL);
}

static void *
hang_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->entry_timeout = cfg->attr_timeout = cfg->negative_timeout = 0.1;
	return NULL;
}

static int
hang_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/prog") != 0)
		return -ENOENT;
	hang();
	if (fstat(srcfd, st) == -1)
		return -errno;
	st->st_mode = S_IFREG | 0755;
	st->st_ino = 2;
	return 0;
}

static int
hang_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "prog", NULL, 0, 0);
	return 0;
}

static int
hang_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/prog") != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	hang();
	return 0;
}

static int
hang_read(const char *path, char *buf, size_t len, off_t off,
    struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	(void)fi;
	hang();
	if ((n = pread(srcfd, buf, len, off)) == -1)
		return -errno;
	return (int)n;
}

static const struct fuse_operations ops = {
	.init = hang_init,
	.getattr = hang_getattr,
	.readdir = hang_readdir,
	.open = hang_open,
	.read = hang_read,
};

int
main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: hangfs SRC FLAG MOUNTPOINT [fuse options]\n");
		return 2;
	}
	src = argv[1];
	flag = argv[2];
	if ((srcfd = open(src, O_RDONLY)) == -1) {
		perror(src);
		return 1;
	}
	argv[2] = argv[0];
	return fuse_main(argc - 2, argv + 2, &ops, NULL);
}
