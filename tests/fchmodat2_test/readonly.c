// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: read-only mounts, immutable and append-only inodes.
 */
#include "fchmodat2_test.h"

/* Bind-mount "ro" (holding "file" 0644 and "link" -> "file") read-only. */
static int ro_setup(struct fixture *f)
{
	char path[PATH_MAX];

	if (!env.root) {
		t_skip("not root: cannot create a read-only mount");
		return -1;
	}
	if (!env.private_ns) {
		t_skip("no private mount namespace (%s): will not mount on the host",
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
		t_skip("filesystem does not support FS_IOC_SETFLAGS (%s)",
		       errno_name(-err));
		return;
	}
	if (err == -EPERM && !env.root) {
		t_skip("not root: setting %s needs CAP_LINUX_IMMUTABLE", name);
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

const struct fn_case readonly_cases[] = {
	FN_CASE(readonly_mount_file_erofs_mode_unchanged),
	FN_CASE(readonly_mount_symlink_nofollow_erofs_not_eopnotsupp),
	FN_CASE(readonly_mount_symlink_followed_erofs),
	FN_CASE(readonly_mount_opath_fd_empty_path_erofs),
	FN_CASE(readonly_mount_lookup_errors_before_erofs),
	FN_CASE(immutable_file_eperm_mode_unchanged),
	FN_CASE(append_only_file_eperm_mode_unchanged),
};
const size_t n_readonly_cases = ARRAY_SIZE(readonly_cases);
