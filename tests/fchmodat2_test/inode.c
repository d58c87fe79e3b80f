// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: other file types, timestamps, notification, unlinked inodes.
 */
#include "fchmodat2_test.h"

static void socket_mode_changed(struct fixture *f)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = "sock" };
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!t_setup(fd >= 0, "socket", "sock"))
		return;
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
			t_skip("mknod of a device refused (EPERM): no CAP_MKNOD");
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
	if (!t_setup(!fstatat(f->dfd, "file", &after, 0), "stat", "file"))
		return;
	EXPECT_TS_LATER(after.st_ctim, before.st_ctim);
	EXPECT_TS_EQ(after.st_mtim, past[1]);
	EXPECT_TS_EQ(after.st_atim, past[0]);
	EXPECT_TREE(f, "file", 0600);
}

static void same_mode_still_updates_ctime(struct fixture *f)
{
	struct stat before, after;

	if (!t_setup(!fstatat(f->dfd, "file", &before, 0), "stat", "file"))
		return;
	settle();
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0644, 0));
	if (!t_setup(!fstatat(f->dfd, "file", &after, 0), "stat", "file"))
		return;
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
	if (!t_setup(wd >= 0, "inotify", path))
		return;
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
	if (!t_setup(f->aux_fd >= 0, "inotify", link))
		return;
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

const struct fn_case inode_cases[] = {
	FN_CASE(socket_mode_changed),
	FN_CASE(char_device_mode_changed_without_opening_it),
	FN_CASE(ctime_updated_mtime_atime_unchanged),
	FN_CASE(same_mode_still_updates_ctime),
	FN_CASE(eopnotsupp_leaves_symlink_and_target_ctime),
	FN_CASE(inotify_attrib_event_on_success),
	FN_CASE(inotify_no_event_on_eopnotsupp),
	FN_CASE(empty_path_unlinked_file_fd_inode_changed),
};
const size_t n_inode_cases = ARRAY_SIZE(inode_cases);
