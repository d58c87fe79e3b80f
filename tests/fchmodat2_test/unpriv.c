// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: as an unprivileged user.
 */
#include "fchmodat2_test.h"

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
	pid_t pid;

	pid = t_fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (env.root && drop_privileges())
			_exit(2);
		fn(f);
		t_child_exit();
	}
	t_expect_child(pid);
}

static bool need_root_owned_files(void)
{
	if (!env.root)
		t_skip("not root: cannot create files owned by another user");
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
	if (!t_setup(f->aux_fd >= 0, "open", "file"))
		return;
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
	if (!t_setup(f->aux_fd >= 0, "open", "link"))
		return;
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
		t_skip("not root: cannot give a file a group we are not in");
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
	if (!t_setup(!fchmodat(f->dfd, "locked", 0600, 0), "chmod", "locked"))
		return;
	run_unprivileged(f, child_no_search);
	EXPECT_MODE(f->dfd, "locked", S_IFDIR | 0600);
	if (!t_setup(!fchmodat(f->dfd, "locked", 0755, 0), "chmod", "locked"))
		return;
	EXPECT_MODE(f->dfd, "locked/file", S_IFREG | 0644);
	EXPECT_ABSENT(f->dfd, "locked/missing");
	EXPECT_TREE(f, NULL, 0);
}

const struct fn_case unpriv_cases[] = {
	FN_CASE(unpriv_other_users_file_eperm_mode_unchanged),
	FN_CASE(unpriv_other_users_file_opath_fd_eperm),
	FN_CASE(unpriv_other_users_symlink_followed_eperm),
	FN_CASE(unpriv_other_users_symlink_nofollow_eopnotsupp_not_eperm),
	FN_CASE(unpriv_own_file_mode_changed),
	FN_CASE(unpriv_own_file_foreign_group_setgid_cleared),
	FN_CASE(unpriv_own_file_own_group_setgid_kept),
	FN_CASE(unpriv_no_search_permission_eacces),
};
const size_t n_unpriv_cases = ARRAY_SIZE(unpriv_cases);
