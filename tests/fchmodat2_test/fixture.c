// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: the fixture every case runs in, and the checks of its tree.
 */
#include "fchmodat2_test.h"

struct node {
	const char *name;
	unsigned int type;
	unsigned int perm;	/* distinct, so a wrong target shows */
	const char *target;	/* of a symlink */
};

/* every case runs in a fresh directory holding this tree */
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

_Static_assert(ARRAY_SIZE(tree) == TREE_NODES, "TREE_NODES is the tree's size");

/* st_mode of fixture node @name before the case */
unsigned int tree_mode(const struct fixture *f, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tree); i++) {
		if (!strcmp(tree[i].name, name))
			return f->mode[i];
	}
	return 0;
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

int make_file(int dfd, const char *name, unsigned int perm)
{
	return make_node(dfd, name, S_IFREG, perm, NULL);
}

int make_dir(int dfd, const char *name, unsigned int perm)
{
	return make_node(dfd, name, S_IFDIR, perm, NULL);
}

int make_link(int dfd, const char *name, const char *target)
{
	return make_node(dfd, name, S_IFLNK, 0, target);
}

/* st_mode of @path (lstat), or 0 after reporting a setup error */
unsigned int lmode(int dfd, const char *path)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		setup_error("lstat", path, errno);
		return 0;
	}
	return st.st_mode;
}

/*
 * What the running kernel's own chmod makes of a node of st_mode @old when
 * asked for @mode: the st_mode that fchmodat (the raw system call that
 * every kernel has, which the module does not serve) gives a twin of the
 * node, made anew beside the fixture with @old's type and mode and
 * passed @mode as the case passed it to fchmodat2. The expected mode comes
 * from the kernel under test, not from a formula of this program's (on
 * the oracle, fchmodat2 and fchmodat share chmod_common()). 0 after
 * reporting a setup error.
 */
static unsigned int chmod_result(unsigned int old, unsigned long mode)
{
	static const char twin[] = "twin";
	unsigned int got = 0;

	if (make_node(env.workfd, twin, old & S_IFMT, old & MODE_BITS, NULL))
		goto out;
	if (syscall(SYS_fchmodat, env.workfd, twin, mode)) {
		setup_error("fchmodat", twin, errno);
		goto out;
	}
	got = lmode(env.workfd, twin);
out:
	remove_tree(env.workfd, twin);
	return got;
}

void expect_tree(const char *file, int line, struct fixture *f,
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
			if (!want)
				continue;
		}
		expect_mode(file, line, f->dfd, tree[i].name, want);
	}
	for (i = 0; i < ARRAY_SIZE(absent); i++)
		expect_absent(file, line, f->dfd, absent[i]);
	if (!found) {
		diag("%s:%d: test bug: \"%s\" is not in the fixture", file,
		     line, changed);
		t_state.failures++;
	}
}

/* Set and clear inode flags (FS_*_FL); 0 once they read back so, or -errno */
int change_inode_flags(int dfd, const char *name, int set, int clear)
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
void remove_tree(int parent, const char *name)
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

int fixture_setup(struct fixture *f, unsigned int num)
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

void fixture_teardown(struct fixture *f, unsigned int num)
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
void settle(void)
{
	const struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

void expect_ts(const char *file, int line, const char *expr,
	       const struct timespec *a, const struct timespec *b, int want)
{
	if (ts_cmp(a, b) == want)
		return;
	t_fail("%s:%d: %s: expected %s, got %lld.%09ld vs %lld.%09ld", file,
	       line, expr, want ? "later" : "equal", (long long)a->tv_sec,
	       (long)a->tv_nsec, (long long)b->tv_sec, (long)b->tv_nsec);
}

