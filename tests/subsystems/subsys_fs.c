// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_fs - what fchmodat2 does on one mounted filesystem beyond what
 * fchmodat2_test checks there (that one covers per-mount read-only bind
 * mounts, immutable/append-only files and IN_ATTRIB on success): a
 * read-only superblock, the order of EROFS and EPERM, immutable and
 * append-only directories, a symlink to an immutable file, no inotify
 * event for a refused call, and, across an unmount, that a refused symlink
 * mode change never reached the disk.
 *
 * Usage: subsys_fs -m MOUNTPOINT [-D DEVICE -t FSTYPE]
 *   Works in a new directory below MOUNTPOINT; remounts MOUNTPOINT
 *   read-only and back (so nothing else may have a file open for writing
 *   there). With -D and -t, also unmounts it and mounts DEVICE again.
 *   Root only.
 */
#include "subsys.h"

#include <grp.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mount.h>

#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS		_IOR('f', 1, long)
#define FS_IOC_SETFLAGS		_IOW('f', 2, long)
#endif
#define FS_IMMUTABLE_FL		0x00000010
#define FS_APPEND_FL		0x00000020

static const char *mnt, *dev, *fstype;
static char work[PATH_MAX / 2];
static int wfd = -1;

static int open_work(void)
{
	wfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0)
		setup_error("open", work, errno);
	return wfd < 0 ? -1 : 0;
}

/* 0, or -errno of FS_IOC_SETFLAGS; "@name" must be a file or directory */
static int set_flags(const char *name, int set, int clear)
{
	int fd, flags, ret = 0;

	fd = openat(wfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		ret = -errno;
	} else {
		flags = (flags | set) & ~clear;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* Set @flag on @name, or skip when this filesystem has no inode flags. */
static int flag_or_skip(const char *name, int flag)
{
	int err = set_flags(name, flag, 0);

	if (err == -ENOTTY || err == -EOPNOTSUPP) {
		t_skip("filesystem does not support FS_IOC_SETFLAGS (%s)",
		       errno_name(-err));
		return -1;
	}
	if (err) {
		errno = -err;
		setup_error("FS_IOC_SETFLAGS", name, errno);
		return -1;
	}
	return 0;
}

static void clear_flags(const char *name)
{
	int err = set_flags(name, 0, FS_IMMUTABLE_FL | FS_APPEND_FL);

	if (err) {
		errno = -err;
		setup_error("clearing the inode flags of", name, errno);
	}
}

/* A fresh directory @name holding a file "file" of @mode. */
static int make_dir_with_file(const char *name, unsigned int mode)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/file", name);
	unlinkat(wfd, path, 0);
	unlinkat(wfd, name, AT_REMOVEDIR);
	if (mkdirat(wfd, name, 0755) || fchmodat(wfd, name, 0755, 0)) {
		setup_error("mkdir", name, errno);
		return -1;
	}
	return make_file(wfd, path, mode);
}

static int mount_again(unsigned long flags)
{
	if (mount(NULL, mnt, NULL, MS_REMOUNT | flags, NULL)) {
		setup_error(flags & MS_RDONLY ? "remount read-only" :
			    "remount read-write", mnt, errno);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

static void sb_readonly_erofs_before_eopnotsupp_modes_unchanged(void)
{
	int fd, lfd;

	if (make_file(wfd, "file", 0644) || make_link(wfd, "link", "file"))
		return;
	fd = openat(wfd, "file", O_PATH | O_CLOEXEC);
	lfd = openat(wfd, "link", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || lfd < 0) {
		setup_error("open", "file/link", errno);
		goto out_close;
	}
	if (mount_again(MS_RDONLY))
		goto out_close;
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0), EROFS);
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, NOFOLLOW), EROFS);
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0644, 0), EROFS);
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0600, 0), EROFS);
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0600, NOFOLLOW), EROFS);
	EXPECT_ERR(sys_fchmodat2(fd, "", 0600, AT_EMPTY_PATH), EROFS);
	EXPECT_ERR(sys_fchmodat2(lfd, "", 0600, AT_EMPTY_PATH | NOFOLLOW),
		   EROFS);
	/* lookup errors come first, as ever */
	EXPECT_ERR(sys_fchmodat2(wfd, "missing", 0600, 0), ENOENT);
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0x200), EINVAL);
	/* the old call agrees */
	EXPECT_ERR(syscall(SYS_fchmodat, wfd, "file", 0600), EROFS);
	mount_again(0);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
out_close:
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
}

static void sb_readonly_immutable_file_erofs_before_eperm(void)
{
	if (make_file(wfd, "ifile", 0644) ||
	    flag_or_skip("ifile", FS_IMMUTABLE_FL))
		return;
	if (!mount_again(MS_RDONLY)) {
		EXPECT_ERR(sys_fchmodat2(wfd, "ifile", 0600, 0), EROFS);
		mount_again(0);
	}
	EXPECT_ERR(sys_fchmodat2(wfd, "ifile", 0600, 0), EPERM);
	clear_flags("ifile");
	EXPECT_MODE(wfd, "ifile", S_IFREG | 0644);
}

static void dir_flag_eperm_entries_still_changeable(int flag)
{
	if (make_dir_with_file("fdir", 0644))
		return;
	if (flag_or_skip("fdir", flag))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "fdir", 0700, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "fdir", 0700, NOFOLLOW), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "fdir/.", 0700, 0), EPERM);
	/* the flag guards the directory's inode, not its entries' */
	EXPECT_OK(sys_fchmodat2(wfd, "fdir/file", 0600, 0));
	EXPECT_MODE(wfd, "fdir", S_IFDIR | 0755);
	EXPECT_MODE(wfd, "fdir/file", S_IFREG | 0600);
	clear_flags("fdir");
}

static void immutable_directory_eperm_entries_still_changeable(void)
{
	dir_flag_eperm_entries_still_changeable(FS_IMMUTABLE_FL);
}

static void append_only_directory_eperm_entries_still_changeable(void)
{
	dir_flag_eperm_entries_still_changeable(FS_APPEND_FL);
}

static void symlink_to_immutable_file_nofollow_eopnotsupp_followed_eperm(void)
{
	if (make_file(wfd, "ifile2", 0644) ||
	    make_link(wfd, "ilink", "ifile2") ||
	    flag_or_skip("ifile2", FS_IMMUTABLE_FL))
		return;
	/* the symlink is not immutable: its own refusal comes */
	EXPECT_ERR(sys_fchmodat2(wfd, "ilink", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(wfd, "ilink", 0600, 0), EPERM);
	clear_flags("ifile2");
	EXPECT_MODE(wfd, "ifile2", S_IFREG | 0644);
	EXPECT_MODE(wfd, "ilink", S_IFLNK | 0777);
}

/* ---------------------------------------------------------------------- */

static void inotify_directory_watch_attrib_with_name_on_success(void)
{
	int in;

	if (make_dir_with_file("wdir", 0644) || subsys_watch(work, "wdir", &in))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "wdir/file", 0600, 0));
	EXPECT_EQ(subsys_attrib_events(in, "file"), 1);
	EXPECT_MODE(wfd, "wdir/file", S_IFREG | 0600);
	close(in);
}

static void inotify_no_event_on_erofs(void)
{
	int in;

	if (make_file(wfd, "rofile", 0644) || subsys_watch(work, "rofile", &in))
		return;
	if (!mount_again(MS_RDONLY)) {
		EXPECT_ERR(sys_fchmodat2(wfd, "rofile", 0600, 0), EROFS);
		mount_again(0);
	}
	EXPECT_EQ(subsys_attrib_events(in, NULL), 0);
	EXPECT_MODE(wfd, "rofile", S_IFREG | 0644);
	close(in);
}

static void inotify_no_event_on_immutable_eperm(void)
{
	int in;

	if (make_file(wfd, "ifile3", 0644) ||
	    flag_or_skip("ifile3", FS_IMMUTABLE_FL))
		return;
	/* setting the flag is itself an IN_ATTRIB: watch from here on */
	if (subsys_watch(work, "ifile3", &in))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "ifile3", 0600, 0), EPERM);
	EXPECT_EQ(subsys_attrib_events(in, NULL), 0);
	clear_flags("ifile3");
	EXPECT_MODE(wfd, "ifile3", S_IFREG | 0644);
	close(in);
}

static void inotify_no_event_on_unprivileged_eperm(void)
{
	pid_t pid;
	int in;

	if (make_file(wfd, "rootfile", 0644) ||
	    subsys_watch(work, "rootfile", &in))
		return;
	pid = t_fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(2);
		EXPECT_ERR(sys_fchmodat2(wfd, "rootfile", 0600, 0), EPERM);
		t_child_exit();
	}
	t_expect_child(pid);
	EXPECT_EQ(subsys_attrib_events(in, NULL), 0);
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 0644);
	close(in);
}

/* ---------------------------------------------------------------------- */

static void symlink_nofollow_refused_mode_unchanged_on_disk(void)
{
	struct stat st;
	int fd;

	if (!dev || !fstype) {
		t_skip("no -D DEVICE -t FSTYPE: cannot mount it again");
		return;
	}
	if (make_file(wfd, "dfile", 0640) || make_link(wfd, "dlink", "dfile"))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "dlink", 0600, NOFOLLOW), EOPNOTSUPP);
	fd = openat(wfd, "dlink", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (!t_setup(fd >= 0, "open", "dlink"))
		return;
	EXPECT_ERR(sys_fchmodat2(fd, "", 0600, AT_EMPTY_PATH), EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(fd, "", 0, AT_EMPTY_PATH | NOFOLLOW),
		   EOPNOTSUPP);
	close(fd);
	/* what the inode cache says, then what the disk says */
	EXPECT_MODE(wfd, "dlink", S_IFLNK | 0777);
	close(wfd);
	wfd = -1;
	if (umount(mnt)) {
		setup_error("umount", mnt, errno);
	} else if (mount(dev, mnt, fstype, 0, NULL)) {
		setup_error("mount", dev, errno);
		return;
	}
	if (open_work())
		return;
	if (fstatat(wfd, "dlink", &st, AT_SYMLINK_NOFOLLOW))
		setup_error("lstat", "dlink", errno);
	else
		diag("after mounting %s again: dlink mode 0%o", dev,
		     (unsigned int)st.st_mode);
	EXPECT_MODE(wfd, "dlink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "dfile", S_IFREG | 0640);
}

static const struct subsys_case cases[] = {
	CASE(sb_readonly_erofs_before_eopnotsupp_modes_unchanged),
	CASE(sb_readonly_immutable_file_erofs_before_eperm),
	CASE(immutable_directory_eperm_entries_still_changeable),
	CASE(append_only_directory_eperm_entries_still_changeable),
	CASE(symlink_to_immutable_file_nofollow_eopnotsupp_followed_eperm),
	CASE(inotify_directory_watch_attrib_with_name_on_success),
	CASE(inotify_no_event_on_erofs),
	CASE(inotify_no_event_on_immutable_eperm),
	CASE(inotify_no_event_on_unprivileged_eperm),
	/* last: it unmounts */
	CASE(symlink_nofollow_refused_mode_unchanged_on_disk),
};

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"file", "link", "ifile", "fdir/file", "ilink", "ifile2",
		"wdir/file", "rofile", "ifile3", "rootfile", "dfile", "dlink",
		NULL
	};
	static const char * const dirs[] = { "fdir", "wdir", NULL };
	int c;

	while ((c = getopt(argc, argv, "m:D:t:")) != -1) {
		switch (c) {
		case 'm':
			mnt = optarg;
			break;
		case 'D':
			dev = optarg;
			break;
		case 't':
			fstype = optarg;
			break;
		default:
			mnt = NULL;
			optind = argc + 1;
			break;
		}
	}
	if (!mnt || optind != argc) {
		fprintf(stderr, "usage: %s -m MOUNTPOINT [-D DEVICE -t FSTYPE]\n",
			argv[0]);
		return 2;
	}
	t_plan(ARRAY_SIZE(cases));
	umask(0);
	if (chdir("/") || geteuid() != 0) {
		diag("must run as root");
		return 1;
	}
	if (sys_fchmodat2(AT_FDCWD, "/", 0, ~0u) != -1 || errno != EINVAL)
		diag("fchmodat2 is not available (%s)", errno_name(errno));
	wfd = subsys_workdir(mnt, "fs", work, sizeof(work));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
