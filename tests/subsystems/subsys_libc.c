// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_libc - what a real client sees: glibc's fchmodat(...,
 * AT_SYMLINK_NOFOLLOW) and lchmod(), with /proc not mounted. glibc 2.39+
 * sends them to fchmodat2 (452) and falls back to its /proc emulation
 * only on ENOSYS; without /proc that emulation cannot work (EOPNOTSUPP for
 * every file).
 *
 * Dynamically linked, on purpose: run it with another glibc's loader,
 *   LD --library-path LIBDIR subsys_libc -d DIR
 * It unmounts /proc in a private mount namespace of its own first (root).
 * The cases check 452's answer when the kernel has 452, and glibc's
 * documented fallback when it has not (ENOSYS); the names say which.
 */
#include "subsys.h"

#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <gnu/libc-version.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static char work[PATH_MAX / 2];
static int wfd = -1;
static bool have_452;

static int fixture(void)
{
	unlinkat(wfd, "dir", AT_REMOVEDIR);
	if (make_file(wfd, "file", 0644) || make_link(wfd, "link", "file"))
		return -1;
	if (mkdirat(wfd, "dir", 0755) || fchmodat(wfd, "dir", 0755, 0)) {
		setup_error("mkdir", "dir", errno);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

static void glibc_is_2_39_or_later(void)
{
	const char *v = gnu_get_libc_version();
	int major = 0, minor = 0;

	diag("glibc %s, kernel fchmodat2 %s", v,
	     have_452 ? "available" : "ENOSYS");
	if (sscanf(v, "%d.%d", &major, &minor) != 2 ||
	    major * 1000 + minor < 2039) {
		diag("glibc %s does not call fchmodat2", v);
		t_state.failures++;
	}
}

static void proc_is_not_mounted(void)
{
	EXPECT_ERR(access("/proc/self/fd", F_OK), ENOENT);
}

/*
 * In a child, 452 answers EXFULL through a seccomp filter: glibc falls
 * back only on ENOSYS, so EXFULL shows that it called 452 and returned
 * its answer as is.
 */
static void c_marked(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fchmodat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EXFULL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(insns), .filter = insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		setup_error("seccomp", "", errno);
		return;
	}
	EXPECT_ERR(fchmodat(wfd, "file", 0600, AT_SYMLINK_NOFOLLOW), EXFULL);
	EXPECT_ERR(lchmod("link", 0600), EXFULL);
	EXPECT_ERR(fchmodat(wfd, "", 0600, AT_EMPTY_PATH), EXFULL);
	/* flags 0: the old system call, as ever */
	EXPECT_OK(fchmodat(wfd, "file", 0640, 0));
}

static void fchmodat_with_flags_and_lchmod_go_to_452(void)
{
	pid_t pid;

	if (fixture())
		return;
	pid = t_fork();
	if (pid == 0) {
		if (fchdir(wfd))
			_exit(2);
		c_marked();
		t_child_exit();
	}
	t_expect_child(pid);
	EXPECT_MODE(wfd, "file", S_IFREG | 0640);
}

static void fchmodat_nofollow(void)
{
	if (fixture())
		return;
	if (have_452) {
		EXPECT_OK(fchmodat(wfd, "file", 0600, AT_SYMLINK_NOFOLLOW));
		EXPECT_OK(fchmodat(wfd, "dir", 0700, AT_SYMLINK_NOFOLLOW));
		EXPECT_MODE(wfd, "file", S_IFREG | 0600);
		EXPECT_MODE(wfd, "dir", S_IFDIR | 0700);
	} else {
		/* glibc: the O_PATH fd cannot be upgraded without /proc */
		EXPECT_ERR(fchmodat(wfd, "file", 0600, AT_SYMLINK_NOFOLLOW),
			   EOPNOTSUPP);
		EXPECT_ERR(fchmodat(wfd, "dir", 0700, AT_SYMLINK_NOFOLLOW),
			   EOPNOTSUPP);
		EXPECT_MODE(wfd, "file", S_IFREG | 0644);
		EXPECT_MODE(wfd, "dir", S_IFDIR | 0755);
	}
	EXPECT_ERR(fchmodat(wfd, "link", 0600, AT_SYMLINK_NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

static void lchmod_file_and_symlink(void)
{
	if (fixture() || fchdir(wfd))
		return;
	if (have_452) {
		EXPECT_OK(lchmod("file", 0600));
		EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	} else {
		EXPECT_ERR(lchmod("file", 0600), EOPNOTSUPP);
		EXPECT_MODE(wfd, "file", S_IFREG | 0644);
	}
	EXPECT_ERR(lchmod("link", 0600), EOPNOTSUPP);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
	if (chdir("/"))
		setup_error("chdir", "/", errno);
}

static void fchmodat_at_empty_path_opath_fd(void)
{
	int fd;

	if (fixture())
		return;
	fd = openat(wfd, "file", O_PATH | O_CLOEXEC);
	if (!t_setup(fd >= 0, "open", "file"))
		return;
	if (have_452) {
		EXPECT_OK(fchmodat(fd, "", 0600, AT_EMPTY_PATH));
		EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	} else {
		/* glibc's emulation knows AT_SYMLINK_NOFOLLOW only */
		EXPECT_ERR(fchmodat(fd, "", 0600, AT_EMPTY_PATH), EINVAL);
		EXPECT_MODE(wfd, "file", S_IFREG | 0644);
	}
	close(fd);
}

static const struct subsys_case cases[] = {
	CASE(glibc_is_2_39_or_later),
	CASE(proc_is_not_mounted),
	CASE(fchmodat_with_flags_and_lchmod_go_to_452),
	CASE(fchmodat_nofollow),
	CASE(lchmod_file_and_symlink),
	CASE(fchmodat_at_empty_path_opath_fd),
};

int main(int argc, char **argv)
{
	static const char * const files[] = { "file", "link", NULL };
	static const char * const dirs[] = { "dir", NULL };
	const char *parent = subsys_dir_option(argc, argv);

	t_plan(ARRAY_SIZE(cases));
	umask(0);
	have_452 = !(syscall(__NR_fchmodat2, AT_FDCWD, "/", 0, ~0u) == -1 &&
		     errno == ENOSYS);
	wfd = subsys_workdir(parent, "libc", work, sizeof(work));
	/* no /proc, here only */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (umount2("/proc", MNT_DETACH) && errno != EINVAL))
		diag("cannot unmount /proc: %s", errno_name(errno));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
