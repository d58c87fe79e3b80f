// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_vfs - fchmodat2 where the path walk leaves the plain directory tree:
 * /proc/PID/fd/N magic links (an O_PATH file, a symlink, a directory, a
 * deleted file; followed and with AT_SYMLINK_NOFOLLOW; another task's fd,
 * as root and as another user), and overlayfs (copy-up of a lower file,
 * an upper file, a lower symlink, a read-only overlay, IN_ATTRIB on the
 * merged path).
 *
 * Usage: subsys_vfs -d DIR (on tmpfs; overlayfs is mounted below it, /proc
 * must be mounted). Root only. The magic links are named relative to an
 * O_PATH descriptor of /proc ("PID/fd/N").
 */
#include "subsys.h"

#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>

/*
 * /proc, open: the magic links are named relative to it, so that another
 * user needs no search permission on "/" (an initramfs's root is 0700).
 */
static int wfd = -1, procfd = -1;
static char work[PATH_MAX / 2];

static char *wpath(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", work, name);
	return path;
}

static char *fdpath(pid_t pid, int fd)
{
	static char path[64];

	if (pid)
		snprintf(path, sizeof(path), "%d/fd/%d", pid, fd);
	else
		snprintf(path, sizeof(path), "self/fd/%d", fd);
	return path;
}

static int opath(const char *name, int flags)
{
	int fd = openat(wfd, name, O_PATH | O_CLOEXEC | flags);

	if (fd < 0)
		setup_error("open O_PATH", name, errno);
	return fd;
}

static void magic_link_opath_file_followed_changes_the_file(void)
{
	int fd;

	if (make_file(wfd, "mfile", 0644))
		return;
	fd = opath("mfile", 0);
	if (fd < 0)
		return;
	EXPECT_OK(sys_fchmodat2(procfd, fdpath(0, fd), 0600, 0));
	EXPECT_MODE(wfd, "mfile", S_IFREG | 0600);
	close(fd);
}

/* the last component is /proc's own symlink: never its target */
static void magic_link_nofollow_eopnotsupp_file_unchanged(void)
{
	int fd;

	if (make_file(wfd, "mfile2", 0644))
		return;
	fd = opath("mfile2", 0);
	if (fd < 0)
		return;
	EXPECT_ERR(sys_fchmodat2(procfd, fdpath(0, fd), 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_MODE(wfd, "mfile2", S_IFREG | 0644);
	close(fd);
}

/* an O_PATH | O_NOFOLLOW fd of a symlink: the link itself, both ways */
static void magic_link_to_a_symlink_eopnotsupp_both_ways(void)
{
	int fd;

	if (make_file(wfd, "mtarget", 0644) ||
	    make_link(wfd, "mlink", "mtarget"))
		return;
	fd = opath("mlink", O_NOFOLLOW);
	if (fd < 0)
		return;
	EXPECT_ERR(sys_fchmodat2(procfd, fdpath(0, fd), 0600, 0),
		   EOPNOTSUPP);
	EXPECT_ERR(sys_fchmodat2(procfd, fdpath(0, fd), 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_MODE(wfd, "mlink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "mtarget", S_IFREG | 0644);
	close(fd);
}

static void magic_link_opath_directory_followed(void)
{
	int fd;

	unlinkat(wfd, "mdir", AT_REMOVEDIR);
	if (!t_setup(!mkdirat(wfd, "mdir", 0755), "mkdir", "mdir"))
		return;
	fd = opath("mdir", O_DIRECTORY);
	if (fd < 0)
		return;
	EXPECT_OK(sys_fchmodat2(procfd, fdpath(0, fd), 0700, 0));
	EXPECT_MODE(wfd, "mdir", S_IFDIR | 0700);
	/* a path relative to the directory the magic link names */
	if (!make_file(wfd, "mdir/inner", 0644)) {
		char path[80];

		snprintf(path, sizeof(path), "%s/inner", fdpath(0, fd));
		EXPECT_OK(sys_fchmodat2(procfd, path, 0604, NOFOLLOW));
		EXPECT_MODE(wfd, "mdir/inner", S_IFREG | 0604);
	}
	close(fd);
}

static void magic_link_deleted_file_still_changed(void)
{
	int fd;

	if (make_file(wfd, "mgone", 0644))
		return;
	fd = opath("mgone", 0);
	if (fd < 0)
		return;
	if (unlinkat(wfd, "mgone", 0)) {
		setup_error("unlink", "mgone", errno);
		close(fd);
		return;
	}
	EXPECT_OK(sys_fchmodat2(procfd, fdpath(0, fd), 0400, 0));
	EXPECT_FD_MODE(fd, S_IFREG | 0400);
	EXPECT_ERR(sys_fchmodat2(procfd, fdpath(0, fd), 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_FD_MODE(fd, S_IFREG | 0400);
	close(fd);
}

/*
 * A child holding an O_PATH fd of @name, as @uid; it waits on a pipe.
 * Returns its pid; *@fd the descriptor number, *@hold the pipe's end
 * to close when done.
 */
static pid_t holder(const char *name, uid_t uid, int *fd, int *hold)
{
	int ready[2], go[2];
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(go)) {
		setup_error("pipe", "", errno);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int f;

		close(ready[0]);
		close(go[1]);
		/*
		 * dumpable again after the credential change, as a task
		 * started by that user is: its /proc/PID/fd is the user's
		 */
		if (uid && (setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid) ||
			    prctl(PR_SET_DUMPABLE, 1)))
			_exit(3);
		f = openat(wfd, name, O_PATH);
		if (f < 0 || write(ready[1], &f, sizeof(f)) != sizeof(f))
			_exit(4);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || read(ready[0], fd, sizeof(*fd)) != sizeof(*fd)) {
		setup_error("holder", name, errno);
		close(ready[0]);
		close(go[1]);
		if (pid > 0)
			t_wait(pid);
		return -1;
	}
	close(ready[0]);
	*hold = go[1];
	return pid;
}

static void release(pid_t pid, int hold)
{
	close(hold);
	t_expect_child(pid);
}

/* as root, another task's fd is followed as one's own */
static void other_task_fd_as_root_followed(void)
{
	int fd, hold;
	pid_t pid;

	if (make_file(wfd, "ofile", 0644))
		return;
	pid = holder("ofile", 0, &fd, &hold);
	if (pid < 0)
		return;
	EXPECT_OK(sys_fchmodat2(procfd, fdpath(pid, fd), 0640, 0));
	EXPECT_MODE(wfd, "ofile", S_IFREG | 0640);
	EXPECT_ERR(sys_fchmodat2(procfd, fdpath(pid, fd), 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_MODE(wfd, "ofile", S_IFREG | 0640);
	release(pid, hold);
}

/*
 * As another user: a root task's fd cannot be looked up (EACCES, the
 * ptrace access check); the user's own task's fd of a file it does not
 * own can, and the call is EPERM; of its own file, it works.
 */
static void other_task_fd_as_another_user(void)
{
	int rfd, rhold, nfd, nhold, ownfd, ownhold, st;
	pid_t root, own, nob, me;

	if (make_file(wfd, "rfile", 0644) || make_file(wfd, "nfile", 0644))
		return;
	if (!t_setup(!fchownat(wfd, "nfile", NOBODY, NOBODY, 0),
		     "chown", "nfile"))
		return;
	root = holder("rfile", 0, &rfd, &rhold);
	if (root < 0)
		return;
	nob = holder("rfile", NOBODY, &nfd, &nhold);
	own = holder("nfile", NOBODY, &ownfd, &ownhold);
	if (nob < 0 || own < 0)
		goto out;
	me = fork();
	if (me == 0) {
		int bad = 0;

		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		errno = 0;
		if (sys_fchmodat2(procfd, fdpath(root, rfd), 0600, 0) != -1 ||
		    errno != EACCES) {
			printf("# root's fd: %s, not EACCES\n", errno_name(errno));
			bad = 1;
		}
		errno = 0;
		if (sys_fchmodat2(procfd, fdpath(nob, nfd), 0600, 0) != -1 ||
		    errno != EPERM) {
			printf("# own task's fd of root's file: %s, not EPERM\n",
			       errno_name(errno));
			bad = 1;
		}
		errno = 0;
		if (sys_fchmodat2(procfd, fdpath(own, ownfd), 0604, 0)) {
			printf("# own task's fd of own file: %s, not 0\n",
			       errno_name(errno));
			bad = 1;
		}
		_exit(bad);
	}
	st = t_wait(me);
	if (st != 0)
		t_fail("the other user's calls: wait status %d", st);
	EXPECT_MODE(wfd, "rfile", S_IFREG | 0644);
	EXPECT_MODE(wfd, "nfile", S_IFREG | 0604);
out:
	if (own > 0)
		release(own, ownhold);
	if (nob > 0)
		release(nob, nhold);
	release(root, rhold);
}

/*
 * overlayfs: lower/ and upper/ below the work directory, merged at
 * merged/ (ro: read-only, lower/ alone).
 */
static bool ovl_mounted, ovl_skipped;

static int ovl_mount(bool ro)
{
	char opts[3 * PATH_MAX / 2 + 64];
	static const char * const dirs[] = {
		"lower", "upper", "ovlwork", "merged"
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdirat(wfd, dirs[i], 0755) && errno != EEXIST) {
			setup_error("mkdir", dirs[i], errno);
			return -1;
		}
	if (ro)
		snprintf(opts, sizeof(opts), "lowerdir=%s/upper:%s/lower", work,
			 work);
	else
		snprintf(opts, sizeof(opts),
			 "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/ovlwork",
			 work, work, work);
	if (mount("subsys-ovl", wpath("merged"), "overlay", ro ? MS_RDONLY : 0,
		  opts)) {
		if (errno == ENODEV) {
			t_skip("no overlayfs in this kernel (mount: ENODEV)");
			ovl_skipped = true;
		} else {
			setup_error("mount overlay", opts, errno);
		}
		return -1;
	}
	ovl_mounted = true;
	return 0;
}

static void ovl_umount(void)
{
	if (ovl_mounted && umount(wpath("merged")))
		setup_error("umount", "merged", errno);
	ovl_mounted = false;
}

static void overlay_setup_lower_files(void)
{
	const char * const names[] = { "lower/lfile", "lower/lfile2" };
	unsigned int i;

	if (mkdirat(wfd, "lower", 0755) && errno != EEXIST) {
		setup_error("mkdir", "lower", errno);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (make_file(wfd, names[i], 0644))
			return;
	if (make_link(wfd, "lower/llink", "lfile"))
		return;
	if (ovl_mount(false))
		return;
	EXPECT_MODE(wfd, "merged/lfile", S_IFREG | 0644);
	EXPECT_MODE(wfd, "merged/llink", S_IFLNK | 0777);
}

static void overlay_lower_file_copied_up_lower_untouched(void)
{
	struct stat st;

	if (!ovl_mounted) {
		if (ovl_skipped)
			t_skip("no overlayfs in this kernel");
		else
			setup_error("overlay", "not mounted", errno);
		return;
	}
	EXPECT_OK(sys_fchmodat2(wfd, "merged/lfile", 0600, 0));
	EXPECT_MODE(wfd, "merged/lfile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "upper/lfile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "lower/lfile", S_IFREG | 0644);
	if (fstatat(wfd, "lower/lfile", &st, 0) == 0)
		EXPECT_EQ(st.st_nlink, 1);
}

static void overlay_upper_file_changed(void)
{
	if (!ovl_mounted) {
		t_skip("overlayfs not mounted (see the setup case)");
		return;
	}
	if (make_file(wfd, "merged/ufile", 0644))
		return;
	EXPECT_MODE(wfd, "upper/ufile", S_IFREG | 0644);
	EXPECT_OK(sys_fchmodat2(wfd, "merged/ufile", 0640, NOFOLLOW));
	EXPECT_MODE(wfd, "merged/ufile", S_IFREG | 0640);
	EXPECT_MODE(wfd, "upper/ufile", S_IFREG | 0640);
}

/* refused before the overlay copies anything up */
static void overlay_lower_symlink_nofollow_refused_no_copy_up(void)
{
	struct stat st;

	if (!ovl_mounted) {
		t_skip("overlayfs not mounted (see the setup case)");
		return;
	}
	EXPECT_ERR(sys_fchmodat2(wfd, "merged/llink", 0600, NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_MODE(wfd, "merged/llink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "lower/llink", S_IFLNK | 0777);
	errno = 0;
	if (fstatat(wfd, "upper/llink", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT) {
		t_fail("upper/llink: copied up (%s)", errno_name(errno));
	}
	/* followed: the lower file it names, copied up */
	EXPECT_OK(sys_fchmodat2(wfd, "merged/llink", 0604, 0));
	EXPECT_MODE(wfd, "merged/lfile", S_IFREG | 0604);
	EXPECT_MODE(wfd, "lower/lfile", S_IFREG | 0644);
}

static void overlay_inotify_attrib_on_merged_path(void)
{
	int in, n;

	if (!ovl_mounted) {
		t_skip("overlayfs not mounted (see the setup case)");
		return;
	}
	if (subsys_watch(work, "merged/lfile2", &in))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "merged/llink", 0600, NOFOLLOW),
		   EOPNOTSUPP);
	n = subsys_attrib_events(in, NULL);
	EXPECT_EQ(n, 0);
	EXPECT_OK(sys_fchmodat2(wfd, "merged/lfile2", 0611, 0));
	n = subsys_attrib_events(in, NULL);
	EXPECT_EQ(n, 1);
	EXPECT_MODE(wfd, "merged/lfile2", S_IFREG | 0611);
	EXPECT_MODE(wfd, "lower/lfile2", S_IFREG | 0644);
	close(in);
	ovl_umount();
}

static void overlay_read_only_erofs_modes_unchanged(void)
{
	if (ovl_skipped) {
		t_skip("no overlayfs in this kernel");
		return;
	}
	if (ovl_mount(true))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "merged/lfile2", 0600, 0), EROFS);
	EXPECT_MODE(wfd, "merged/lfile2", S_IFREG | 0611);
	/* the symlink check comes after the read-only one, as in mainline */
	EXPECT_ERR(sys_fchmodat2(wfd, "merged/llink", 0600, NOFOLLOW), EROFS);
	EXPECT_MODE(wfd, "merged/llink", S_IFLNK | 0777);
	ovl_umount();
}

static const struct subsys_case cases[] = {
	CASE(magic_link_opath_file_followed_changes_the_file),
	CASE(magic_link_nofollow_eopnotsupp_file_unchanged),
	CASE(magic_link_to_a_symlink_eopnotsupp_both_ways),
	CASE(magic_link_opath_directory_followed),
	CASE(magic_link_deleted_file_still_changed),
	CASE(other_task_fd_as_root_followed),
	CASE(other_task_fd_as_another_user),
	CASE(overlay_setup_lower_files),
	CASE(overlay_lower_file_copied_up_lower_untouched),
	CASE(overlay_upper_file_changed),
	CASE(overlay_lower_symlink_nofollow_refused_no_copy_up),
	CASE(overlay_inotify_attrib_on_merged_path),
	CASE(overlay_read_only_erofs_modes_unchanged),
};

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"mfile", "mfile2", "mtarget", "mlink", "mdir/inner", "ofile",
		"rfile", "nfile", "lower/lfile", "lower/lfile2", "lower/llink",
		"upper/lfile", "upper/lfile2", "upper/ufile", "upper/llink",
		NULL
	};
	static const char * const dirs[] = {
		"mdir", "lower", "upper", "ovlwork/work", "ovlwork", "merged",
		NULL
	};
	signal(SIGPIPE, SIG_IGN);
	wfd = subsys_root_begin(argc, argv, ARRAY_SIZE(cases), "vfs", work,
				sizeof(work));
	procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0) {
		diag("open /proc: %s", errno_name(errno));
		subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, -1);
	} else {
		subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	}
	ovl_umount();
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
