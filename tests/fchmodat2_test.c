// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test - userspace tests for fchmodat2(2), syscall 452.
 *
 * The same binary runs natively on a kernel with fchmodat2 (6.6+), where the
 * kernel's own implementation is the oracle that keeps these expectations
 * honest, and in a guest whose old kernel gets fchmodat2 from our module.
 *
 * Every case calls the syscall directly and checks the return value, errno
 * and the full st_mode of every node of its fixture, so a call that changes
 * the wrong inode, or changes one and then reports an error, fails.
 *
 * Output is TAP in the kselftest dialect. Exit status: 0 when no case failed,
 * 1 otherwise; a kernel without fchmodat2 always fails.
 *
 * Usage: fchmodat2_test [-d DIR]
 *        fchmodat2_test --probe
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "../userspace/fchmodat2.h"	/* the number on every ABI, AT_ flags */
#include "tap.h"

/* <linux/fs.h> clashes with <sys/mount.h> on some glibc versions */
#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS		_IOR('f', 1, long)
#define FS_IOC_SETFLAGS		_IOW('f', 2, long)
#endif
#ifndef FS_IMMUTABLE_FL
#define FS_IMMUTABLE_FL		0x00000010
#endif
#ifndef FS_APPEND_FL
#define FS_APPEND_FL		0x00000020
#endif

/* the kernel's S_IALLUGO: the bits that chmod sets, the rest it keeps */
#define MODE_BITS	07777

#define VALID_FLAGS	(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)
#define NOBODY		65534	/* no /etc/passwd in the guest: numeric ids */
#define BAD_PTR		((const char *)1)
#define PAST		978307200	/* 2001-01-01T00:00:00Z */


static long sys_fchmodat2(int dfd, const char *path, unsigned long mode,
			  unsigned long flags)
{
	return syscall(__NR_fchmodat2, dfd, path, mode, flags);
}

/* ----------------------------------------------------------------------
 * TAP reporting and checks
 */

static struct {
	bool root;		/* euid 0: root-only cases can run */
	bool private_ns;	/* our own mount namespace: mounts are safe */
	char ns_error[80];	/* why there is no private namespace */
	bool tmpfs;		/* work is a tmpfs we mounted */
	char work[1024];	/* the temporary directory of this run */
	int workfd;
	int cwdfd;
} env = { .workfd = -1, .cwdfd = -1 };

static unsigned int n_pass, n_fail, n_skip;
static int failures;		/* failed checks in the running case */
static char skip_reason[160];	/* why the running case skipped */

static void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
}

/* A fixture could not be built: the case fails, it does not skip. */
static void setup_error(const char *what, const char *name, int err)
{
	diag("setup: %s \"%s\": %s", what, name, errno_name(err));
	failures++;
}

static void expect_result(const char *file, int line, const char *expr,
			  long ret, int err, int want)
{
	char expected[48];

	if (!want && ret == 0)
		return;
	if (want && ret == -1 && err == want)
		return;
	failures++;
	if (want)
		snprintf(expected, sizeof(expected), "-1/%s", errno_name(want));
	else
		snprintf(expected, sizeof(expected), "0");
	if (ret == -1)
		diag("%s:%d: %s: expected %s, got -1/%s", file, line, expr,
		     expected, errno_name(err));
	else
		diag("%s:%d: %s: expected %s, got %ld", file, line, expr,
		     expected, ret);
}

static void expect_mode(const char *file, int line, int dfd,
			const char *path, unsigned int want)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		failures++;
		diag("%s:%d: lstat \"%s\": expected mode 0%o, got %s",
		     file, line, path, want, errno_name(errno));
	} else if (st.st_mode != want) {
		failures++;
		diag("%s:%d: lstat \"%s\": expected mode 0%o, got 0%o",
		     file, line, path, want, (unsigned int)st.st_mode);
	}
}

static void expect_fd_mode(const char *file, int line, int fd,
			   unsigned int want)
{
	struct stat st;

	if (fstat(fd, &st)) {
		failures++;
		diag("%s:%d: fstat: %s", file, line, errno_name(errno));
	} else if (st.st_mode != want) {
		failures++;
		diag("%s:%d: fstat: expected mode 0%o, got 0%o", file, line,
		     want, (unsigned int)st.st_mode);
	}
}

static void expect_absent(const char *file, int line, int dfd,
			  const char *path)
{
	struct stat st;

	if (!fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) || errno != ENOENT) {
		failures++;
		diag("%s:%d: lstat \"%s\": expected ENOENT, got %s", file,
		     line, path, errno_name(errno));
	}
}

static void expect_eq(const char *file, int line, const char *expr,
		      long long got, long long want)
{
	if (got == want)
		return;
	failures++;
	diag("%s:%d: %s: expected %lld, got %lld", file, line, expr, want,
	     got);
}

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

/* @want: 0 for "a == b", 1 for "a > b" */
static void expect_ts(const char *file, int line, const char *expr,
		      const struct timespec *a, const struct timespec *b,
		      int want)
{
	if (ts_cmp(a, b) == want)
		return;
	failures++;
	diag("%s:%d: %s: expected %s, got %lld.%09ld vs %lld.%09ld", file,
	     line, expr, want ? "later" : "equal", (long long)a->tv_sec,
	     a->tv_nsec, (long long)b->tv_sec, b->tv_nsec);
}

/* errno is sampled right after the call: argument order is unspecified */
#define EXPECT_RESULT(call, want)					\
	do {								\
		long _ret;						\
		int _err;						\
									\
		errno = 0;						\
		_ret = (call);						\
		_err = errno;						\
		expect_result(__FILE__, __LINE__, #call, _ret, _err, want); \
	} while (0)
#define EXPECT_OK(call)		EXPECT_RESULT(call, 0)
#define EXPECT_ERR(call, err)	EXPECT_RESULT(call, err)
#define EXPECT_MODE(dfd, path, want) \
	expect_mode(__FILE__, __LINE__, dfd, path, want)
#define EXPECT_FD_MODE(fd, want) \
	expect_fd_mode(__FILE__, __LINE__, fd, want)
#define EXPECT_ABSENT(dfd, path) \
	expect_absent(__FILE__, __LINE__, dfd, path)
#define EXPECT_EQ(got, want) \
	expect_eq(__FILE__, __LINE__, #got, got, want)
#define EXPECT_TS_EQ(a, b) \
	expect_ts(__FILE__, __LINE__, #a " == " #b, &(a), &(b), 0)
#define EXPECT_TS_LATER(a, b) \
	expect_ts(__FILE__, __LINE__, #a " > " #b, &(a), &(b), 1)
#define EXPECT_TREE(f, changed, mode) \
	expect_tree(__FILE__, __LINE__, f, changed, mode)

/* ----------------------------------------------------------------------
 * Fixture: every case runs in a fresh directory holding this tree
 */

struct node {
	const char *name;
	unsigned int type;
	unsigned int perm;	/* distinct, so a wrong target shows */
	const char *target;	/* of a symlink */
};

static const struct node tree[] = {
	{ ".",		S_IFDIR, 0711, NULL },
	{ "file",	S_IFREG, 0644, NULL },
	{ "fifo",	S_IFIFO, 0640, NULL },
	{ "dir",	S_IFDIR, 0755, NULL },
	{ "dir/file",	S_IFREG, 0604, NULL },
	{ "dir/sub",	S_IFDIR, 03751, NULL },
	{ "dir/link",	S_IFLNK, 0, "file" },
	{ "link",	S_IFLNK, 0, "file" },
	{ "dlink",	S_IFLNK, 0, "dir" },
	{ "dangling",	S_IFLNK, 0, "missing" },
	{ "loop1",	S_IFLNK, 0, "loop2" },
	{ "loop2",	S_IFLNK, 0, "loop1" },
};

/* names that must still not exist after every case */
static const char * const absent[] = { "missing", "dir/missing", "x" };

struct fixture {
	int dfd;			/* the case's directory */
	char dir[1100];			/* its absolute path */
	unsigned int mode[ARRAY_SIZE(tree)];	/* st_mode before the case */
	int aux_fd;			/* for the case; closed at teardown */
	bool ro_mounted;		/* "ro" is a mount point */
	unsigned int ro_link_mode;	/* st_mode of "ro/link" */
};

/* st_mode of fixture node @name before the case */
static unsigned int tree_mode(const struct fixture *f, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tree); i++) {
		if (!strcmp(tree[i].name, name))
			return f->mode[i];
	}
	return 0;
}

/* What chmod_common() makes of @old when asked for @mode (a umode_t). */
static unsigned int chmod_result(unsigned int old, unsigned long mode)
{
	unsigned short umode = (unsigned short)mode;

	return (umode & MODE_BITS) | (old & ~MODE_BITS);
}

static void expect_tree(const char *file, int line, struct fixture *f,
			const char *changed, unsigned long mode)
{
	bool found = !changed;
	unsigned int want;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tree); i++) {
		want = f->mode[i];
		if (changed && !strcmp(changed, tree[i].name)) {
			want = chmod_result(want, mode);
			found = true;
		}
		expect_mode(file, line, f->dfd, tree[i].name, want);
	}
	for (i = 0; i < ARRAY_SIZE(absent); i++)
		expect_absent(file, line, f->dfd, absent[i]);
	if (!found) {
		diag("%s:%d: test bug: \"%s\" is not in the fixture", file,
		     line, changed);
		failures++;
	}
}

static int make_node(int dfd, const char *name, unsigned int type,
		     unsigned int perm, const char *target)
{
	int fd;

	switch (type) {
	case S_IFLNK:
		if (symlinkat(target, dfd, name)) {
			setup_error("symlink", name, errno);
			return -1;
		}
		return 0;
	case S_IFREG:
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    perm);
		if (fd < 0) {
			setup_error("create", name, errno);
			return -1;
		}
		close(fd);
		break;
	case S_IFDIR:
		if (strcmp(name, ".") && mkdirat(dfd, name, perm)) {
			setup_error("mkdir", name, errno);
			return -1;
		}
		break;
	default:
		if (mknodat(dfd, name, type | perm, 0)) {
			setup_error("mknod", name, errno);
			return -1;
		}
		break;
	}
	/* no umask, default ACL or setgid directory may pick these */
	if (fchownat(dfd, name, -1, getegid(), AT_SYMLINK_NOFOLLOW) ||
	    fchmodat(dfd, name, perm, 0)) {
		setup_error("chown/chmod", name, errno);
		return -1;
	}
	return 0;
}

static int make_file(int dfd, const char *name, unsigned int perm)
{
	return make_node(dfd, name, S_IFREG, perm, NULL);
}

static int make_dir(int dfd, const char *name, unsigned int perm)
{
	return make_node(dfd, name, S_IFDIR, perm, NULL);
}

static int make_link(int dfd, const char *name, const char *target)
{
	return make_node(dfd, name, S_IFLNK, 0, target);
}

/* st_mode of @path (lstat), or 0 after reporting a setup error */
static unsigned int lmode(int dfd, const char *path)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		setup_error("lstat", path, errno);
		return 0;
	}
	return st.st_mode;
}

/* Set and clear inode flags (FS_*_FL); 0 once they read back so, or -errno */
static int change_inode_flags(int dfd, const char *name, int set, int clear)
{
	int fd, flags, want, ret = 0;

	fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		ret = -errno;
		goto out_close;
	}
	want = (flags | set) & ~clear;
	if (want == flags)
		goto out_close;
	if (ioctl(fd, FS_IOC_SETFLAGS, &want) ||
	    ioctl(fd, FS_IOC_GETFLAGS, &flags))
		ret = -errno;
	else if ((flags & (set | clear)) != set)
		ret = -EIO;	/* accepted, but did not take */
out_close:
	close(fd);
	return ret;
}

/* Remove @name below @parent, whatever its flags and permissions. */
static void remove_tree(int parent, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		change_inode_flags(parent, name, 0,
				   FS_IMMUTABLE_FL | FS_APPEND_FL);
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(parent, name, 0);
		return;
	}
	fchmodat(parent, name, 0700, 0);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_tree(dirfd(dir), de->d_name);
	}
	closedir(dir);
	unlinkat(parent, name, AT_REMOVEDIR);
}

static int fixture_setup(struct fixture *f, unsigned int num)
{
	char name[16];
	size_t i;

	memset(f, 0, sizeof(*f));
	f->dfd = -1;
	f->aux_fd = -1;
	snprintf(name, sizeof(name), "%03u", num);
	snprintf(f->dir, sizeof(f->dir), "%s/%s", env.work, name);
	if (make_dir(env.workfd, name, 0755))
		return -1;
	f->dfd = openat(env.workfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dfd < 0) {
		setup_error("open", name, errno);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(tree); i++) {
		if (make_node(f->dfd, tree[i].name, tree[i].type,
			      tree[i].perm, tree[i].target))
			return -1;
	}
	for (i = 0; i < ARRAY_SIZE(tree); i++) {
		f->mode[i] = lmode(f->dfd, tree[i].name);
		if (!f->mode[i])
			return -1;
	}
	return 0;
}

static void fixture_teardown(struct fixture *f, unsigned int num)
{
	char name[16];
	char path[PATH_MAX];

	if (fchdir(env.cwdfd))
		diag("teardown: fchdir back: %s", errno_name(errno));
	if (f->ro_mounted) {
		snprintf(path, sizeof(path), "%s/ro", f->dir);
		if (umount2(path, MNT_DETACH))
			diag("teardown: umount %s: %s", path,
			     errno_name(errno));
	}
	if (f->aux_fd >= 0)
		close(f->aux_fd);
	if (f->dfd >= 0)
		close(f->dfd);
	snprintf(name, sizeof(name), "%03u", num);
	remove_tree(env.workfd, name);
}

/* Let the clock move on, so that a timestamp set now differs. */
static void settle(void)
{
	const struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* ----------------------------------------------------------------------
 * Table cases: one call, then the whole fixture is checked
 */

struct call_case {
	const char *name;
	const char *at;		/* open this for dfd; NULL: the case dir */
	int at_flags;		/* open flags for @at */
	const char *path;
	unsigned int mode;
	unsigned int flags;
	int err;		/* expected errno; 0: success */
	const char *changes;	/* the node whose mode changes, if any */
};

#define NOFOLLOW	AT_SYMLINK_NOFOLLOW
#define EMPTY		AT_EMPTY_PATH
#define DIRFD		(O_RDONLY | O_DIRECTORY)

static const struct call_case call_cases[] = {
	/* name,
	 *   at, at_flags, path, mode, flags, errno, node changed
	 */
	{ "regular_file_mode_changed",
	  NULL, 0, "file", 0600, 0, 0, "file" },
	{ "regular_file_nofollow_mode_changed",
	  NULL, 0, "file", 0600, NOFOLLOW, 0, "file" },
	{ "directory_mode_changed",
	  NULL, 0, "dir", 0700, 0, 0, "dir" },
	{ "directory_nofollow_mode_changed",
	  NULL, 0, "dir", 0700, NOFOLLOW, 0, "dir" },
	{ "fifo_mode_changed_without_opening_it",
	  NULL, 0, "fifo", 0600, 0, 0, "fifo" },
	{ "fifo_nofollow_mode_changed",
	  NULL, 0, "fifo", 0600, NOFOLLOW, 0, "fifo" },
	{ "same_mode_succeeds_mode_unchanged",
	  NULL, 0, "file", 0644, 0, 0, "file" },

	{ "symlink_followed_target_changed_link_unchanged",
	  NULL, 0, "link", 0600, 0, 0, "file" },
	{ "nofollow_symlink_eopnotsupp_mode_unchanged",
	  NULL, 0, "link", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dangling_symlink_followed_enoent",
	  NULL, 0, "dangling", 0600, 0, ENOENT, NULL },
	{ "dangling_symlink_nofollow_eopnotsupp",
	  NULL, 0, "dangling", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "symlink_loop_followed_eloop",
	  NULL, 0, "loop1", 0600, 0, ELOOP, NULL },
	{ "symlink_loop_nofollow_eopnotsupp",
	  NULL, 0, "loop1", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "symlink_loop_as_path_component_nofollow_eloop",
	  NULL, 0, "loop1/file", 0600, NOFOLLOW, ELOOP, NULL },
	{ "dir_symlink_followed_dir_changed",
	  NULL, 0, "dlink", 0700, 0, 0, "dir" },
	{ "dir_symlink_nofollow_eopnotsupp",
	  NULL, 0, "dlink", 0700, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dir_symlink_trailing_slash_nofollow_dir_changed",
	  NULL, 0, "dlink/", 0700, NOFOLLOW, 0, "dir" },
	{ "dir_symlink_trailing_slash_followed_dir_changed",
	  NULL, 0, "dlink/", 0700, 0, 0, "dir" },
	{ "dir_symlink_trailing_dot_nofollow_dir_changed",
	  NULL, 0, "dlink/.", 0700, NOFOLLOW, 0, "dir" },
	{ "dir_symlink_component_nofollow_final_file_changed",
	  NULL, 0, "dlink/file", 0600, NOFOLLOW, 0, "dir/file" },
	{ "dir_symlink_component_nofollow_final_symlink_eopnotsupp",
	  NULL, 0, "dlink/link", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dir_symlink_component_final_symlink_followed_target_changed",
	  NULL, 0, "dlink/link", 0600, 0, 0, "dir/file" },
	{ "file_symlink_trailing_slash_enotdir",
	  NULL, 0, "link/", 0600, 0, ENOTDIR, NULL },
	{ "file_symlink_trailing_slash_nofollow_enotdir",
	  NULL, 0, "link/", 0600, NOFOLLOW, ENOTDIR, NULL },
	{ "regular_file_trailing_slash_enotdir",
	  NULL, 0, "file/", 0600, 0, ENOTDIR, NULL },
	{ "regular_file_as_path_component_enotdir",
	  NULL, 0, "file/x", 0600, 0, ENOTDIR, NULL },
	{ "missing_file_enoent",
	  NULL, 0, "missing", 0600, 0, ENOENT, NULL },
	{ "missing_file_nofollow_enoent",
	  NULL, 0, "missing", 0600, NOFOLLOW, ENOENT, NULL },
	{ "missing_path_component_enoent",
	  NULL, 0, "missing/file", 0600, 0, ENOENT, NULL },

	{ "dot_relative_to_dirfd_dir_changed",
	  "dir", DIRFD, ".", 0700, 0, 0, "dir" },
	{ "dot_nofollow_relative_to_dirfd_dir_changed",
	  "dir", DIRFD, ".", 0700, NOFOLLOW, 0, "dir" },
	{ "dotdot_relative_to_dirfd_parent_changed",
	  "dir/sub", DIRFD, "..", 0700, 0, 0, "dir" },
	{ "dotdot_nofollow_relative_to_dirfd_parent_changed",
	  "dir/sub", DIRFD, "..", 0700, NOFOLLOW, 0, "dir" },
	{ "opath_dirfd_relative_path_file_changed",
	  "dir", O_PATH | O_DIRECTORY, "file", 0600, 0, 0, "dir/file" },
	{ "file_dirfd_relative_path_enotdir",
	  "file", O_RDONLY, "x", 0600, 0, ENOTDIR, NULL },
	{ "opath_file_dirfd_relative_path_enotdir",
	  "file", O_PATH, "x", 0600, 0, ENOTDIR, NULL },

	{ "empty_path_without_at_empty_path_enoent",
	  NULL, 0, "", 0700, 0, ENOENT, NULL },
	{ "empty_path_file_fd_without_at_empty_path_enoent",
	  "file", O_RDONLY, "", 0600, NOFOLLOW, ENOENT, NULL },
	{ "empty_path_regular_fd_file_changed",
	  "file", O_RDONLY, "", 0600, EMPTY, 0, "file" },
	{ "empty_path_regular_fd_nofollow_file_changed",
	  "file", O_RDONLY, "", 0600, EMPTY | NOFOLLOW, 0, "file" },
	{ "empty_path_opath_file_fd_file_changed",
	  "file", O_PATH, "", 0600, EMPTY, 0, "file" },
	{ "empty_path_opath_file_fd_nofollow_file_changed",
	  "file", O_PATH, "", 0600, EMPTY | NOFOLLOW, 0, "file" },
	{ "empty_path_dir_fd_dir_changed",
	  "dir", DIRFD, "", 0700, EMPTY, 0, "dir" },
	{ "empty_path_opath_dir_fd_dir_changed",
	  "dir", O_PATH | O_DIRECTORY, "", 0700, EMPTY, 0, "dir" },
	{ "empty_path_opath_dir_fd_nofollow_dir_changed",
	  "dir", O_PATH | O_DIRECTORY, "", 0700, EMPTY | NOFOLLOW, 0, "dir" },
	{ "empty_path_opath_fifo_fd_fifo_changed",
	  "fifo", O_PATH, "", 0600, EMPTY, 0, "fifo" },
	{ "empty_path_opath_symlink_fd_eopnotsupp_target_unchanged",
	  "link", O_PATH | O_NOFOLLOW, "", 0600, EMPTY, EOPNOTSUPP, NULL },
	{ "empty_path_opath_symlink_fd_nofollow_eopnotsupp",
	  "link", O_PATH | O_NOFOLLOW, "", 0600, EMPTY | NOFOLLOW,
	  EOPNOTSUPP, NULL },
	{ "empty_path_opath_dangling_symlink_fd_eopnotsupp",
	  "dangling", O_PATH | O_NOFOLLOW, "", 0600, EMPTY, EOPNOTSUPP, NULL },
	{ "at_empty_path_with_nonempty_path_file_changed",
	  NULL, 0, "file", 0600, EMPTY, 0, "file" },
	{ "at_empty_path_with_nonempty_path_symlink_followed",
	  NULL, 0, "link", 0600, EMPTY, 0, "file" },
	{ "at_empty_path_nofollow_symlink_eopnotsupp",
	  NULL, 0, "link", 0600, EMPTY | NOFOLLOW, EOPNOTSUPP, NULL },

	{ "mode_file_type_bits_ignored",
	  NULL, 0, "file", 0170600, 0, 0, "file" },
	{ "mode_regular_type_bits_on_directory_ignored",
	  NULL, 0, "dir", 0100700, 0, 0, "dir" },
	{ "mode_bit_16_ignored",
	  NULL, 0, "file", 0200600, 0, 0, "file" },
	{ "mode_high_bits_ignored",
	  NULL, 0, "file", 0xfffff000u | 0640, 0, 0, "file" },
	{ "mode_all_bits_set_gives_07777",
	  NULL, 0, "file", 0xffffffffu, 0, 0, "file" },
	{ "mode_zero_applied",
	  NULL, 0, "file", 0, 0, 0, "file" },
	{ "setuid_bit_applied",
	  NULL, 0, "file", 04755, 0, 0, "file" },
	{ "setgid_bit_applied",
	  NULL, 0, "file", 02755, 0, 0, "file" },
	{ "sticky_bit_applied_to_file",
	  NULL, 0, "file", 01644, 0, 0, "file" },
	{ "all_special_bits_applied",
	  NULL, 0, "file", 07777, 0, 0, "file" },
	{ "sticky_bit_applied_to_directory",
	  NULL, 0, "dir", 01777, 0, 0, "dir" },
	{ "setgid_bit_applied_to_directory",
	  NULL, 0, "dir", 02755, 0, 0, "dir" },
	{ "special_bits_cleared_on_directory",
	  NULL, 0, "dir/sub", 0751, 0, 0, "dir/sub" },
};

static void run_call_case(struct fixture *f, const struct call_case *c)
{
	int dfd = f->dfd;

	if (c->at) {
		f->aux_fd = openat(f->dfd, c->at, c->at_flags | O_CLOEXEC);
		if (f->aux_fd < 0) {
			setup_error("open", c->at, errno);
			return;
		}
		dfd = f->aux_fd;
	}
	EXPECT_RESULT(sys_fchmodat2(dfd, c->path, c->mode, c->flags), c->err);
	EXPECT_TREE(f, c->changes, c->mode);
	if (failures)
		diag("call: fchmodat2(%s, \"%s\", 0%o, 0x%x)",
		     c->at ? c->at : "<fixture dir>", c->path, c->mode, c->flags);
}

/* ----------------------------------------------------------------------
 * Flags, file descriptors, path resolution limits
 */

static void invalid_flag_bits_einval_mode_unchanged(struct fixture *f)
{
	unsigned int bit, flag;
	int fd;

	fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (fd < 0) {
		setup_error("open", "file", errno);
		return;
	}
	f->aux_fd = fd;
	for (bit = 0; bit < 32; bit++) {
		flag = 1u << bit;
		if (flag & VALID_FLAGS)
			continue;
		EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "dir", 0700, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "fifo", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600,
					 flag | NOFOLLOW), EINVAL);
		EXPECT_ERR(sys_fchmodat2(fd, "", 0600, flag | EMPTY), EINVAL);
		EXPECT_ERR(sys_fchmodat2(fd, "", 0600, flag | VALID_FLAGS),
			   EINVAL);
		if (failures) {
			diag("with flag bit 0x%08x", flag);
			break;
		}
	}
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, ~0u), EINVAL);
	EXPECT_TREE(f, NULL, 0);
}

static void invalid_flag_bits_einval_before_lookup(struct fixture *f)
{
	char longname[NAME_MAX + 2];
	unsigned int bit, flag;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (bit = 0; bit < 32; bit++) {
		flag = 1u << bit;
		if (flag & VALID_FLAGS)
			continue;
		EXPECT_ERR(sys_fchmodat2(f->dfd, "missing", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "missing/file", 0600, flag),
			   EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "file/x", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "loop1", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, longname, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(-1, "", 0600, flag | EMPTY), EINVAL);
		if (failures) {
			diag("with flag bit 0x%08x", flag);
			break;
		}
	}
	EXPECT_TREE(f, NULL, 0);
}

/* The kernel takes int-sized arguments: a 64-bit register's upper half. */
static void syscall_args_upper_32_bits_ignored(struct fixture *f)
{
#if ULONG_MAX > 0xffffffffUL
	const unsigned long high = ~0UL << 32;

	EXPECT_OK(sys_fchmodat2(f->dfd, "file", high | 0600, 0));
	EXPECT_MODE(f->dfd, "file", S_IFREG | 0600);
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0640, high));
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, high | NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_TREE(f, "file", 0640);
#else
	(void)f;
	skip("32-bit long: syscall arguments have no upper 32 bits");
#endif
}

static void bad_dirfd_relative_path_ebadf(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, 0), EBADF);
	EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, NOFOLLOW), EBADF);
	EXPECT_ERR(sys_fchmodat2(INT_MAX, "file", 0600, 0), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void closed_dirfd_relative_path_ebadf(struct fixture *f)
{
	int fd = dup(f->dfd);

	if (fd < 0 || close(fd)) {
		setup_error("dup/close", ".", errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(fd, "file", 0600, 0), EBADF);
	EXPECT_ERR(sys_fchmodat2(fd, "", 0600, EMPTY), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void bad_dirfd_empty_path_ebadf(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(-1, "", 0600, EMPTY), EBADF);
	EXPECT_ERR(sys_fchmodat2(-1, "", 0600, EMPTY | NOFOLLOW), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void absolute_path_ignores_bad_dirfd(struct fixture *f)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/file", f->dir);
	EXPECT_OK(sys_fchmodat2(-1, path, 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void absolute_path_ignores_file_dirfd(struct fixture *f)
{
	char path[PATH_MAX];

	f->aux_fd = openat(f->dfd, "file", O_RDONLY | O_CLOEXEC);
	if (f->aux_fd < 0) {
		setup_error("open", "file", errno);
		return;
	}
	snprintf(path, sizeof(path), "%s/dir/file", f->dir);
	EXPECT_OK(sys_fchmodat2(f->aux_fd, path, 0600, NOFOLLOW));
	EXPECT_TREE(f, "dir/file", 0600);
}

static void at_fdcwd_relative_path_file_changed(struct fixture *f)
{
	if (fchdir(f->dfd)) {
		setup_error("chdir", f->dir, errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(AT_FDCWD, "file", 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void at_fdcwd_empty_path_cwd_changed(struct fixture *f)
{
	if (fchdir(f->dfd)) {
		setup_error("chdir", f->dir, errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(AT_FDCWD, "", 0700, EMPTY));
	EXPECT_TREE(f, ".", 0700);
}

static void bad_path_pointer_efault(struct fixture *f)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, 0), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, NOFOLLOW), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, EMPTY), EFAULT);

	/* "file" at the very end of a page, the next page unmapped */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + page, page)) {
		setup_error("mmap", "", errno);
		return;
	}
	memcpy(map + page - 4, "file", 4);
	EXPECT_ERR(sys_fchmodat2(f->dfd, map + page - 4, 0600, 0), EFAULT);
	munmap(map, page);
	EXPECT_TREE(f, NULL, 0);
}

static void null_path_efault_even_with_at_empty_path(struct fixture *f)
{
	f->aux_fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (f->aux_fd < 0) {
		setup_error("open", "file", errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, 0), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, NOFOLLOW), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, NULL, 0600, EMPTY), EFAULT);
	EXPECT_TREE(f, NULL, 0);
}

static void name_max_component_file_changed(struct fixture *f)
{
	char name[NAME_MAX + 1];

	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	if (make_file(f->dfd, name, 0644))
		return;
	EXPECT_OK(sys_fchmodat2(f->dfd, name, 0600, 0));
	EXPECT_MODE(f->dfd, name, S_IFREG | 0600);
	EXPECT_TREE(f, NULL, 0);
}

static void component_over_name_max_enametoolong(struct fixture *f)
{
	char name[NAME_MAX + 2 + 4];

	memcpy(name, "dir/", 4);
	memset(name + 4, 'n', NAME_MAX + 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_ERR(sys_fchmodat2(f->dfd, name + 4, 0600, 0), ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, name + 4, 0600, NOFOLLOW),
		   ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, name, 0600, 0), ENAMETOOLONG);
	EXPECT_TREE(f, NULL, 0);
}

/* A relative path of exactly @len characters that names @tail. */
static void long_path(char *buf, size_t len, const char *tail)
{
	size_t pad = len - strlen(tail), i;

	for (i = 0; i + 2 <= pad; i += 2)
		memcpy(buf + i, "./", 2);
	if (i < pad)
		buf[i++] = '/';
	memcpy(buf + i, tail, strlen(tail) + 1);
}

static void path_of_path_max_minus_one_file_changed(struct fixture *f)
{
	char path[PATH_MAX + 1];

	long_path(path, PATH_MAX - 1, "file");
	EXPECT_EQ(strlen(path), PATH_MAX - 1);
	EXPECT_OK(sys_fchmodat2(f->dfd, path, 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void path_of_path_max_enametoolong(struct fixture *f)
{
	char path[PATH_MAX + 1];

	long_path(path, PATH_MAX, "file");
	EXPECT_EQ(strlen(path), PATH_MAX);
	EXPECT_ERR(sys_fchmodat2(f->dfd, path, 0600, 0), ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, path, 0600, NOFOLLOW), ENAMETOOLONG);
	EXPECT_TREE(f, NULL, 0);
}

/* c00 -> c01 -> ... -> c(n-1) -> file: following c00 crosses n links */
static int make_chain(struct fixture *f, int n)
{
	char name[8], target[8];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		snprintf(target, sizeof(target), "c%02d", i + 1);
		if (make_link(f->dfd, name, i == n - 1 ? "file" : target))
			return -1;
	}
	return 0;
}

static void expect_chain_unchanged(struct fixture *f, int n)
{
	unsigned int want = tree_mode(f, "link");
	char name[8];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		EXPECT_MODE(f->dfd, name, want);
	}
}

static void symlink_chain_of_40_followed_target_changed(struct fixture *f)
{
	if (make_chain(f, 40))
		return;
	EXPECT_OK(sys_fchmodat2(f->dfd, "c00", 0600, 0));
	expect_chain_unchanged(f, 40);
	EXPECT_TREE(f, "file", 0600);
}

static void symlink_chain_of_41_eloop_target_unchanged(struct fixture *f)
{
	if (make_chain(f, 41))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "c00", 0600, 0), ELOOP);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "c00", 0600, NOFOLLOW), EOPNOTSUPP);
	expect_chain_unchanged(f, 41);
	EXPECT_TREE(f, NULL, 0);
}

/* ----------------------------------------------------------------------
 * Other file types, timestamps, notification, unlinked inodes
 */

static void socket_mode_changed(struct fixture *f)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = "sock" };
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		setup_error("socket", "sock", errno);
		return;
	}
	/* bind() takes a path: make it relative to the case directory */
	ret = fchdir(f->dfd);
	if (!ret)
		ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	if (ret || fchdir(env.cwdfd) || fchmodat(f->dfd, "sock", 0644, 0)) {
		setup_error("bind", "sock", errno);
		close(fd);
		return;
	}
	close(fd);
	EXPECT_OK(sys_fchmodat2(f->dfd, "sock", 0600, 0));
	EXPECT_MODE(f->dfd, "sock", S_IFSOCK | 0600);
	EXPECT_OK(sys_fchmodat2(f->dfd, "sock", 0640, NOFOLLOW));
	EXPECT_MODE(f->dfd, "sock", S_IFSOCK | 0640);
	EXPECT_TREE(f, NULL, 0);
}

static void char_device_mode_changed_without_opening_it(struct fixture *f)
{
	if (mknodat(f->dfd, "null", S_IFCHR | 0644, makedev(1, 3))) {
		if (errno == EPERM)
			skip("mknod of a device refused (EPERM): no CAP_MKNOD");
		else
			setup_error("mknod", "null", errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(f->dfd, "null", 0600, 0));
	EXPECT_MODE(f->dfd, "null", S_IFCHR | 0600);
	EXPECT_OK(sys_fchmodat2(f->dfd, "null", 0640, NOFOLLOW));
	EXPECT_MODE(f->dfd, "null", S_IFCHR | 0640);
	EXPECT_TREE(f, NULL, 0);
}

static void ctime_updated_mtime_atime_unchanged(struct fixture *f)
{
	const struct timespec past[2] = { { PAST, 0 }, { PAST, 0 } };
	struct stat before, after;

	if (utimensat(f->dfd, "file", past, 0) ||
	    fstatat(f->dfd, "file", &before, 0)) {
		setup_error("utimensat", "file", errno);
		return;
	}
	settle();
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0600, 0));
	if (fstatat(f->dfd, "file", &after, 0)) {
		setup_error("stat", "file", errno);
		return;
	}
	EXPECT_TS_LATER(after.st_ctim, before.st_ctim);
	EXPECT_TS_EQ(after.st_mtim, past[1]);
	EXPECT_TS_EQ(after.st_atim, past[0]);
	EXPECT_TREE(f, "file", 0600);
}

static void same_mode_still_updates_ctime(struct fixture *f)
{
	struct stat before, after;

	if (fstatat(f->dfd, "file", &before, 0)) {
		setup_error("stat", "file", errno);
		return;
	}
	settle();
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0644, 0));
	if (fstatat(f->dfd, "file", &after, 0)) {
		setup_error("stat", "file", errno);
		return;
	}
	EXPECT_TS_LATER(after.st_ctim, before.st_ctim);
	EXPECT_TS_EQ(after.st_mtim, before.st_mtim);
	EXPECT_TREE(f, NULL, 0);
}

static void eopnotsupp_leaves_symlink_and_target_ctime(struct fixture *f)
{
	struct stat link0, link1, file0, file1;

	if (fstatat(f->dfd, "link", &link0, AT_SYMLINK_NOFOLLOW) ||
	    fstatat(f->dfd, "file", &file0, 0)) {
		setup_error("stat", "link", errno);
		return;
	}
	settle();
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, NOFOLLOW), EOPNOTSUPP);
	if (fstatat(f->dfd, "link", &link1, AT_SYMLINK_NOFOLLOW) ||
	    fstatat(f->dfd, "file", &file1, 0)) {
		setup_error("stat", "link", errno);
		return;
	}
	EXPECT_TS_EQ(link1.st_ctim, link0.st_ctim);
	EXPECT_TS_EQ(file1.st_ctim, file0.st_ctim);
	EXPECT_TREE(f, NULL, 0);
}

/* Consume the queued events; count the IN_ATTRIB ones (for @wd, or any). */
static int attrib_events(int ifd, int wd)
{
	union {
		struct inotify_event ev;
		char buf[4096];
	} u;
	const struct inotify_event *ev;
	ssize_t len, off;
	int n = 0;

	len = read(ifd, u.buf, sizeof(u.buf));
	if (len < 0)
		return errno == EAGAIN ? 0 : -1;
	for (off = 0; off < len; off += sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)(u.buf + off);
		if ((wd < 0 || ev->wd == wd) && ev->mask & IN_ATTRIB)
			n++;
	}
	return n;
}

static void inotify_attrib_event_on_success(struct fixture *f)
{
	char path[PATH_MAX];
	int wd;

	snprintf(path, sizeof(path), "%s/file", f->dir);
	f->aux_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	wd = f->aux_fd < 0 ? -1 : inotify_add_watch(f->aux_fd, path, IN_ATTRIB);
	if (wd < 0) {
		setup_error("inotify", path, errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0600, 0));
	EXPECT_EQ(attrib_events(f->aux_fd, wd), 1);
	EXPECT_TREE(f, "file", 0600);
}

static void inotify_no_event_on_eopnotsupp(struct fixture *f)
{
	char link[PATH_MAX], file[PATH_MAX];
	int wd_link, wd_file;

	snprintf(link, sizeof(link), "%s/link", f->dir);
	snprintf(file, sizeof(file), "%s/file", f->dir);
	f->aux_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (f->aux_fd < 0) {
		setup_error("inotify", link, errno);
		return;
	}
	wd_link = inotify_add_watch(f->aux_fd, link, IN_ATTRIB | IN_DONT_FOLLOW);
	wd_file = inotify_add_watch(f->aux_fd, file, IN_ATTRIB);
	if (wd_link < 0 || wd_file < 0) {
		setup_error("inotify_add_watch", link, errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_EQ(attrib_events(f->aux_fd, -1), 0);
	/* the watches work: a successful call is seen on each */
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0600, 0));
	EXPECT_EQ(attrib_events(f->aux_fd, wd_file), 1);
	EXPECT_TREE(f, "file", 0600);
}

static void empty_path_unlinked_file_fd_inode_changed(struct fixture *f)
{
	if (make_file(f->dfd, "gone", 0644))
		return;
	f->aux_fd = openat(f->dfd, "gone", O_RDONLY | O_CLOEXEC);
	if (f->aux_fd < 0 || unlinkat(f->dfd, "gone", 0)) {
		setup_error("open/unlink", "gone", errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(f->aux_fd, "", 0600, EMPTY));
	EXPECT_FD_MODE(f->aux_fd, S_IFREG | 0600);
	EXPECT_ABSENT(f->dfd, "gone");
	EXPECT_TREE(f, NULL, 0);
}

/* ----------------------------------------------------------------------
 * Read-only mounts (root, private mount namespace)
 */

/* Bind-mount "ro" (holding "file" 0644 and "link" -> "file") read-only. */
static int ro_setup(struct fixture *f)
{
	char path[PATH_MAX];

	if (!env.root) {
		skip("not root: cannot create a read-only mount");
		return -1;
	}
	if (!env.private_ns) {
		skip("no private mount namespace (%s): will not mount on the host",
		     env.ns_error);
		return -1;
	}
	if (make_dir(f->dfd, "ro", 0755) ||
	    make_file(f->dfd, "ro/file", 0644) ||
	    make_link(f->dfd, "ro/link", "file"))
		return -1;
	snprintf(path, sizeof(path), "%s/ro", f->dir);
	if (mount(path, path, NULL, MS_BIND, NULL)) {
		setup_error("bind mount", path, errno);
		return -1;
	}
	f->ro_link_mode = lmode(f->dfd, "ro/link");
	f->ro_mounted = true;
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL)) {
		setup_error("remount read-only", path, errno);
		return -1;
	}
	/* prove it: a read-only mount refuses a new name */
	if (!mkdirat(f->dfd, "ro/new", 0755) || errno != EROFS) {
		setup_error("mount is not read-only", path, errno);
		return -1;
	}
	return 0;
}

static void expect_ro_unchanged(struct fixture *f)
{
	EXPECT_MODE(f->dfd, "ro/file", S_IFREG | 0644);
	EXPECT_MODE(f->dfd, "ro/link", f->ro_link_mode);
	EXPECT_TREE(f, NULL, 0);
}

static void readonly_mount_file_erofs_mode_unchanged(struct fixture *f)
{
	if (ro_setup(f))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/file", 0600, 0), EROFS);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/file", 0600, NOFOLLOW), EROFS);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/file", 0644, 0), EROFS);
	expect_ro_unchanged(f);
}

static void readonly_mount_symlink_nofollow_erofs_not_eopnotsupp(struct fixture *f)
{
	if (ro_setup(f))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/link", 0600, NOFOLLOW), EROFS);
	expect_ro_unchanged(f);
}

static void readonly_mount_symlink_followed_erofs(struct fixture *f)
{
	if (ro_setup(f))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/link", 0600, 0), EROFS);
	expect_ro_unchanged(f);
}

static void readonly_mount_opath_fd_empty_path_erofs(struct fixture *f)
{
	int fd;

	if (ro_setup(f))
		return;
	f->aux_fd = openat(f->dfd, "ro/file", O_PATH | O_CLOEXEC);
	fd = openat(f->dfd, "ro/link", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (f->aux_fd < 0 || fd < 0) {
		setup_error("open", "ro/file", errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, "", 0600, EMPTY), EROFS);
	EXPECT_ERR(sys_fchmodat2(fd, "", 0600, EMPTY | NOFOLLOW), EROFS);
	close(fd);
	expect_ro_unchanged(f);
}

static void readonly_mount_lookup_errors_before_erofs(struct fixture *f)
{
	if (ro_setup(f))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/missing", 0600, 0), ENOENT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/file/", 0600, 0), ENOTDIR);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "ro/file", 0600, 0x200), EINVAL);
	EXPECT_ABSENT(f->dfd, "ro/missing");
	expect_ro_unchanged(f);
}

/* ----------------------------------------------------------------------
 * Immutable and append-only inodes
 */

static void inode_flag_eperm(struct fixture *f, int flag, const char *name)
{
	int err;

	err = change_inode_flags(f->dfd, "file", flag, 0);
	if (err == -EOPNOTSUPP || err == -ENOTTY) {
		skip("filesystem does not support FS_IOC_SETFLAGS (%s)",
		     errno_name(-err));
		return;
	}
	if (err == -EPERM && !env.root) {
		skip("not root: setting %s needs CAP_LINUX_IMMUTABLE", name);
		return;
	}
	if (err) {
		setup_error("FS_IOC_SETFLAGS", "file", -err);
		return;
	}
	f->aux_fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (f->aux_fd < 0)
		setup_error("open", "file", errno);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, NOFOLLOW), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0644, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, "", 0600, EMPTY), EPERM);
	EXPECT_TREE(f, NULL, 0);
	EXPECT_EQ(change_inode_flags(f->dfd, "file", 0, flag), 0);
}

static void immutable_file_eperm_mode_unchanged(struct fixture *f)
{
	inode_flag_eperm(f, FS_IMMUTABLE_FL, "FS_IMMUTABLE_FL");
}

static void append_only_file_eperm_mode_unchanged(struct fixture *f)
{
	inode_flag_eperm(f, FS_APPEND_FL, "FS_APPEND_FL");
}

/* ----------------------------------------------------------------------
 * As an unprivileged user: root forks a child that drops to 65534
 */

static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		diag("cannot become uid/gid %d: %s", NOBODY, errno_name(errno));
		return -1;
	}
	if (geteuid() != NOBODY || getegid() != NOBODY) {
		diag("still euid %d egid %d", (int)geteuid(), (int)getegid());
		return -1;
	}
	return 0;
}

/*
 * Run @fn in a child process: as uid/gid 65534 when we are root, as
 * ourselves otherwise. Its checks print their own diagnostics; it reports
 * whether any failed through its exit status.
 */
static void run_unprivileged(struct fixture *f, void (*fn)(struct fixture *f))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		setup_error("fork", "", errno);
		return;
	}
	if (pid == 0) {
		failures = 0;
		if (env.root && drop_privileges())
			_exit(2);
		fn(f);
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		setup_error("waitpid", "", errno);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	failures++;
	if (WIFEXITED(status))
		diag("unprivileged child failed (exit status %d)",
		     WEXITSTATUS(status));
	else
		diag("unprivileged child killed by signal %d",
		     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static bool need_root_owned_files(void)
{
	if (!env.root)
		skip("not root: cannot create files owned by another user");
	return env.root;
}

/* Make "own" (mode @perm) owned by the child's uid and group @gid. */
static int make_own_file(struct fixture *f, unsigned int perm, gid_t gid)
{
	if (make_file(f->dfd, "own", 0644))
		return -1;
	if ((env.root && fchownat(f->dfd, "own", NOBODY, gid, 0)) ||
	    fchmodat(f->dfd, "own", perm, 0)) {
		setup_error("chown", "own", errno);
		return -1;
	}
	return 0;
}

static void child_other_users_file(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, NOFOLLOW), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0644, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "dir", 0700, 0), EPERM);
	EXPECT_MODE(f->dfd, "file", S_IFREG | 0644);
}

static void unpriv_other_users_file_eperm_mode_unchanged(struct fixture *f)
{
	if (!need_root_owned_files())
		return;
	run_unprivileged(f, child_other_users_file);
	EXPECT_TREE(f, NULL, 0);
}

static void child_other_users_opath_fd(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, "", 0600, EMPTY), EPERM);
	EXPECT_FD_MODE(f->aux_fd, S_IFREG | 0644);
}

static void unpriv_other_users_file_opath_fd_eperm(struct fixture *f)
{
	if (!need_root_owned_files())
		return;
	f->aux_fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (f->aux_fd < 0) {
		setup_error("open", "file", errno);
		return;
	}
	run_unprivileged(f, child_other_users_opath_fd);
	EXPECT_TREE(f, NULL, 0);
}

static void child_other_users_symlink_followed(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "dlink", 0700, 0), EPERM);
}

static void unpriv_other_users_symlink_followed_eperm(struct fixture *f)
{
	if (!need_root_owned_files())
		return;
	run_unprivileged(f, child_other_users_symlink_followed);
	EXPECT_TREE(f, NULL, 0);
}

static void child_other_users_symlink_nofollow(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "dlink", 0700, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "dangling", 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, "", 0600, EMPTY), EOPNOTSUPP);
}

static void unpriv_other_users_symlink_nofollow_eopnotsupp_not_eperm(struct fixture *f)
{
	if (!need_root_owned_files())
		return;
	f->aux_fd = openat(f->dfd, "link", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (f->aux_fd < 0) {
		setup_error("open", "link", errno);
		return;
	}
	run_unprivileged(f, child_other_users_symlink_nofollow);
	EXPECT_TREE(f, NULL, 0);
}

static void child_own_file(struct fixture *f)
{
	EXPECT_OK(sys_fchmodat2(f->dfd, "own", 0600, 0));
	EXPECT_MODE(f->dfd, "own", S_IFREG | 0600);
	EXPECT_OK(sys_fchmodat2(f->dfd, "own", 04640, NOFOLLOW));
	EXPECT_MODE(f->dfd, "own", S_IFREG | 04640);
}

static void unpriv_own_file_mode_changed(struct fixture *f)
{
	if (make_own_file(f, 0644, env.root ? NOBODY : getegid()))
		return;
	run_unprivileged(f, child_own_file);
	EXPECT_MODE(f->dfd, "own", S_IFREG | 04640);
	EXPECT_TREE(f, NULL, 0);
}

static void child_setgid(struct fixture *f)
{
	EXPECT_OK(sys_fchmodat2(f->dfd, "own", 02755, 0));
}

static void unpriv_own_file_foreign_group_setgid_cleared(struct fixture *f)
{
	if (!env.root) {
		skip("not root: cannot give a file a group we are not in");
		return;
	}
	if (make_own_file(f, 0644, 0))
		return;
	run_unprivileged(f, child_setgid);
	EXPECT_MODE(f->dfd, "own", S_IFREG | (02755 & ~S_ISGID));
	EXPECT_TREE(f, NULL, 0);
}

static void unpriv_own_file_own_group_setgid_kept(struct fixture *f)
{
	if (make_own_file(f, 0644, env.root ? NOBODY : getegid()))
		return;
	run_unprivileged(f, child_setgid);
	EXPECT_MODE(f->dfd, "own", S_IFREG | 02755);
	EXPECT_TREE(f, NULL, 0);
}

static void child_no_search(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(f->dfd, "locked/file", 0600, 0), EACCES);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "locked/file", 0600, NOFOLLOW),
		   EACCES);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "locked/missing", 0600, 0), EACCES);
}

static void unpriv_no_search_permission_eacces(struct fixture *f)
{
	/* owned by root, or by ourselves: either way, no x bit for us */
	if (make_dir(f->dfd, "locked", 0755) ||
	    make_file(f->dfd, "locked/file", 0644))
		return;
	if (fchmodat(f->dfd, "locked", 0600, 0)) {
		setup_error("chmod", "locked", errno);
		return;
	}
	run_unprivileged(f, child_no_search);
	EXPECT_MODE(f->dfd, "locked", S_IFDIR | 0600);
	if (fchmodat(f->dfd, "locked", 0755, 0)) {
		setup_error("chmod", "locked", errno);
		return;
	}
	EXPECT_MODE(f->dfd, "locked/file", S_IFREG | 0644);
	EXPECT_ABSENT(f->dfd, "locked/missing");
	EXPECT_TREE(f, NULL, 0);
}

/* ---------------------------------------------------------------------- */

struct fn_case {
	const char *name;
	void (*fn)(struct fixture *f);
};

#define FN_CASE(fn)	{ #fn, fn }

static const struct fn_case fn_cases[] = {
	FN_CASE(invalid_flag_bits_einval_mode_unchanged),
	FN_CASE(invalid_flag_bits_einval_before_lookup),
	FN_CASE(syscall_args_upper_32_bits_ignored),
	FN_CASE(bad_dirfd_relative_path_ebadf),
	FN_CASE(closed_dirfd_relative_path_ebadf),
	FN_CASE(bad_dirfd_empty_path_ebadf),
	FN_CASE(absolute_path_ignores_bad_dirfd),
	FN_CASE(absolute_path_ignores_file_dirfd),
	FN_CASE(at_fdcwd_relative_path_file_changed),
	FN_CASE(at_fdcwd_empty_path_cwd_changed),
	FN_CASE(bad_path_pointer_efault),
	FN_CASE(null_path_efault_even_with_at_empty_path),
	FN_CASE(name_max_component_file_changed),
	FN_CASE(component_over_name_max_enametoolong),
	FN_CASE(path_of_path_max_minus_one_file_changed),
	FN_CASE(path_of_path_max_enametoolong),
	FN_CASE(symlink_chain_of_40_followed_target_changed),
	FN_CASE(symlink_chain_of_41_eloop_target_unchanged),
	FN_CASE(socket_mode_changed),
	FN_CASE(char_device_mode_changed_without_opening_it),
	FN_CASE(ctime_updated_mtime_atime_unchanged),
	FN_CASE(same_mode_still_updates_ctime),
	FN_CASE(eopnotsupp_leaves_symlink_and_target_ctime),
	FN_CASE(inotify_attrib_event_on_success),
	FN_CASE(inotify_no_event_on_eopnotsupp),
	FN_CASE(empty_path_unlinked_file_fd_inode_changed),
	FN_CASE(readonly_mount_file_erofs_mode_unchanged),
	FN_CASE(readonly_mount_symlink_nofollow_erofs_not_eopnotsupp),
	FN_CASE(readonly_mount_symlink_followed_erofs),
	FN_CASE(readonly_mount_opath_fd_empty_path_erofs),
	FN_CASE(readonly_mount_lookup_errors_before_erofs),
	FN_CASE(immutable_file_eperm_mode_unchanged),
	FN_CASE(append_only_file_eperm_mode_unchanged),
	FN_CASE(unpriv_other_users_file_eperm_mode_unchanged),
	FN_CASE(unpriv_other_users_file_opath_fd_eperm),
	FN_CASE(unpriv_other_users_symlink_followed_eperm),
	FN_CASE(unpriv_other_users_symlink_nofollow_eopnotsupp_not_eperm),
	FN_CASE(unpriv_own_file_mode_changed),
	FN_CASE(unpriv_own_file_foreign_group_setgid_cleared),
	FN_CASE(unpriv_own_file_own_group_setgid_kept),
	FN_CASE(unpriv_no_search_permission_eacces),
};

#define N_CASES	(ARRAY_SIZE(call_cases) + ARRAY_SIZE(fn_cases))

static const char *case_name(size_t i)
{
	if (i < ARRAY_SIZE(call_cases))
		return call_cases[i].name;
	return fn_cases[i - ARRAY_SIZE(call_cases)].name;
}

static void report(unsigned int num, const char *name)
{
	if (failures) {
		printf("not ok %u %s\n", num, name);
		n_fail++;
	} else if (skip_reason[0]) {
		printf("ok %u %s # SKIP %s\n", num, name, skip_reason);
		n_skip++;
	} else {
		printf("ok %u %s\n", num, name);
		n_pass++;
	}
	fflush(stdout);
}

static void run_case(size_t i)
{
	unsigned int num = i + 1;
	struct fixture f;

	failures = 0;
	skip_reason[0] = '\0';
	if (!fixture_setup(&f, num)) {
		if (i < ARRAY_SIZE(call_cases))
			run_call_case(&f, &call_cases[i]);
		else
			fn_cases[i - ARRAY_SIZE(call_cases)].fn(&f);
	}
	fixture_teardown(&f, num);
	report(num, case_name(i));
}

/* ----------------------------------------------------------------------
 * Probe, work directory, main
 */

enum probe_result { PROBE_AVAILABLE, PROBE_ENOSYS, PROBE_UNEXPECTED };

/*
 * Invalid flags must be refused before any lookup. "/" gets its own mode,
 * so that even a broken implementation that accepted the call changes
 * nothing.
 */
static enum probe_result probe(long *ret, int *err)
{
	struct stat st;

	if (stat("/", &st))
		st.st_mode = 0755;
	errno = 0;
	*ret = sys_fchmodat2(AT_FDCWD, "/", st.st_mode & MODE_BITS, ~0u);
	*err = errno;
	if (*ret == -1 && *err == EINVAL)
		return PROBE_AVAILABLE;
	if (*ret == -1 && *err == ENOSYS)
		return PROBE_ENOSYS;
	return PROBE_UNEXPECTED;
}

static int setup_env(const char *parent)
{
	const char *base = parent;
	struct statfs sfs;

	umask(0);
	env.root = geteuid() == 0;
	env.cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (env.cwdfd < 0)
		env.cwdfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(env.ns_error, sizeof(env.ns_error), "not root");
	if (env.root) {
		if (unshare(CLONE_NEWNS))
			snprintf(env.ns_error, sizeof(env.ns_error),
				 "unshare(CLONE_NEWNS): %s", errno_name(errno));
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			snprintf(env.ns_error, sizeof(env.ns_error),
				 "making / private: %s", errno_name(errno));
		else
			env.private_ns = true;
	}
	if (!base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (snprintf(env.work, sizeof(env.work), "%s/fchmodat2-test.XXXXXX",
		     base) >= (int)sizeof(env.work)) {
		diag("%s: path too long", base);
		env.work[0] = '\0';
		return -1;
	}
	if (!mkdtemp(env.work)) {
		diag("mkdtemp %s: %s", env.work, errno_name(errno));
		env.work[0] = '\0';
		return -1;
	}
	if (!parent && env.private_ns) {
		if (mount("fchmodat2-test", env.work, "tmpfs", 0,
			  "mode=0755,size=16m"))
			diag("mounting tmpfs on %s: %s; using %s itself",
			     env.work, errno_name(errno), base);
		else
			env.tmpfs = true;
	}
	/* the unprivileged child looks up names below it */
	if (chmod(env.work, 0755)) {
		diag("chmod %s: %s", env.work, errno_name(errno));
		return -1;
	}
	env.workfd = open(env.work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (env.workfd < 0) {
		diag("open %s: %s", env.work, errno_name(errno));
		return -1;
	}
	if (fstatfs(env.workfd, &sfs))
		sfs.f_type = 0;
	diag("working in %s (filesystem magic 0x%lx%s), as uid %d%s",
	     env.work, (unsigned long)sfs.f_type, env.tmpfs ? ", our tmpfs" : "",
	     (int)geteuid(), env.private_ns ? ", private mount namespace" : "");
	return 0;
}

static void cleanup_env(void)
{
	if (env.workfd >= 0)
		close(env.workfd);
	if (env.tmpfs) {
		if (umount2(env.work, MNT_DETACH))
			diag("umount %s: %s", env.work, errno_name(errno));
		else if (rmdir(env.work))
			diag("rmdir %s: %s", env.work, errno_name(errno));
	} else if (env.work[0]) {
		remove_tree(AT_FDCWD, env.work);
	}
}

static void print_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [-d DIR]\n"
		"       %s --probe\n"
		"  -d DIR   run in a new temporary directory below DIR\n"
		"           (default: as root, a tmpfs in a private mount\n"
		"           namespace; otherwise below $TMPDIR or /tmp)\n"
		"  --probe  only report whether fchmodat2 exists (exit 0: yes,\n"
		"           1: ENOSYS, 2: something else)\n", prog, prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "probe", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *parent = NULL;
	bool probe_only = false, runnable = false;
	enum probe_result pr;
	long ret;
	int c, err;
	size_t i;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			parent = optarg;
			break;
		case 'p':
			probe_only = true;
			break;
		case 'h':
			print_usage(stdout, argv[0]);
			return 0;
		default:
			print_usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		print_usage(stderr, argv[0]);
		return 2;
	}

	pr = probe(&ret, &err);
	if (probe_only) {
		if (pr == PROBE_AVAILABLE)
			printf("fchmodat2: available\n");
		else if (pr == PROBE_ENOSYS)
			printf("fchmodat2: ENOSYS\n");
		else if (ret == -1)
			printf("fchmodat2: unexpected errno %s\n",
			       errno_name(err));
		else
			printf("fchmodat2: unexpected return %ld\n", ret);
		return pr == PROBE_AVAILABLE ? 0 : pr == PROBE_ENOSYS ? 1 : 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("1..%zu\n", N_CASES);
	if (pr == PROBE_ENOSYS) {
		diag("fchmodat2 (syscall %d) is not available on this kernel",
		     __NR_fchmodat2);
	} else {
		if (pr == PROBE_UNEXPECTED)
			diag("probe: invalid flags gave %ld/%s, not -1/EINVAL",
			     ret, ret == -1 ? errno_name(err) : "-");
		runnable = !setup_env(parent);
		if (!runnable)
			diag("no work directory: every case fails");
	}

	for (i = 0; i < N_CASES; i++) {
		if (!runnable) {
			printf("not ok %zu %s\n", i + 1, case_name(i));
			n_fail++;
		} else {
			run_case(i);
		}
	}
	cleanup_env();

	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}
