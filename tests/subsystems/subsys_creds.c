// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_creds - who may change a mode with fchmodat2 (452): as uid/gid 65534
 * with no capability, with CAP_FOWNER, CAP_FSETID, both, or every
 * capability but CAP_FOWNER, and as root of a user namespace that does not
 * map the file's owner, and through an idmapped mount. What is allowed, what is refused (EPERM), and when
 * the set-group-ID bit is silently cleared, must be what a native kernel
 * decides. Root only: it makes the files and the unprivileged children.
 *
 * Usage: subsys_creds [-d DIR]   (works in a new directory below DIR)
 */
#include "subsys.h"

#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <linux/capability.h>

static char work[PATH_MAX / 2];
static int wfd = -1;

#define CAP(c)		(1ULL << (c))

static int sys_capset(unsigned long long effective,
		      unsigned long long permitted)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = (unsigned int)effective,
		  .permitted = (unsigned int)permitted },
		{ .effective = (unsigned int)(effective >> 32),
		  .permitted = (unsigned int)(permitted >> 32) },
	};

	return syscall(SYS_capset, &hdr, data);
}

/* our own permitted set (a container may lack some capabilities) */
static unsigned long long permitted_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return data[0].permitted | (unsigned long long)data[1].permitted << 32;
}

/* Become @id/@id, no supplementary groups, with these capabilities. */
static void drop_to_id(unsigned int id, unsigned long long effective,
		       unsigned long long permitted)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(id, id, id) || setresuid(id, id, id) ||
	    sys_capset(effective, permitted)) {
		diag("cannot become %u with caps 0x%llx/0x%llx: %s", id,
		     effective, permitted, errno_name(errno));
		_exit(2);
	}
}

static void drop_to(unsigned long long effective, unsigned long long permitted)
{
	drop_to_id(NOBODY, effective, permitted);
}

/*
 * Run @fn as 65534 with @caps (effective and permitted) in a child; the
 * child's checks count through its exit status.
 */
static void as_nobody(unsigned long long eff, unsigned long long perm,
		      void (*fn)(void))
{
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		drop_to(eff, perm);
		fn();
		t_child_exit();
	}
	t_expect_child(pid);
}

/*
 * "rootfile", "rootdir" and "rootlink" -> "rootfile" belong to root:root;
 * "own" and "owndir" to 65534:root (a group the child is not in).
 */
static int fixture(void)
{
	unlinkat(wfd, "rootdir", AT_REMOVEDIR);
	unlinkat(wfd, "owndir", AT_REMOVEDIR);
	if (make_file(wfd, "rootfile", 0644) ||
	    make_link(wfd, "rootlink", "rootfile") ||
	    make_file(wfd, "own", 0644) ||
	    mkdirat(wfd, "rootdir", 0755) || mkdirat(wfd, "owndir", 0755)) {
		setup_error("fixture", work, errno);
		return -1;
	}
	if (fchownat(wfd, "own", NOBODY, 0, 0) ||
	    fchownat(wfd, "owndir", NOBODY, 0, 0) ||
	    fchmodat(wfd, "rootdir", 0755, 0) ||
	    fchmodat(wfd, "owndir", 0755, 0)) {
		setup_error("chown/chmod", "own", errno);
		return -1;
	}
	return 0;
}

static void expect_fixture_unchanged(void)
{
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 0644);
	EXPECT_MODE(wfd, "rootdir", S_IFDIR | 0755);
	EXPECT_MODE(wfd, "rootlink", S_IFLNK | 0777);
}

/* ---------------------------------------------------------------------- */

static void c_refused(void)
{
	EXPECT_ERR(sys_fchmodat2(wfd, "rootfile", 0600, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "rootfile", 0644, 0), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "rootdir", 0700, NOFOLLOW), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "rootlink", 0600, 0), EPERM);
	/* the symlink's own refusal comes before the ownership check */
	EXPECT_ERR(sys_fchmodat2(wfd, "rootlink", 0600, NOFOLLOW), EOPNOTSUPP);
}

static void no_caps_other_users_file_eperm(void)
{
	if (fixture())
		return;
	as_nobody(0, 0, c_refused);
	expect_fixture_unchanged();
}

static void cap_fowner_permitted_not_effective_eperm(void)
{
	if (fixture())
		return;
	as_nobody(0, CAP(CAP_FOWNER), c_refused);
	expect_fixture_unchanged();
}

static void every_cap_but_fowner_other_users_file_eperm(void)
{
	unsigned long long caps = permitted_caps() & ~CAP(CAP_FOWNER);

	if (fixture())
		return;
	as_nobody(caps, caps, c_refused);
	expect_fixture_unchanged();
}

static void cap_fsetid_alone_other_users_file_eperm(void)
{
	if (fixture())
		return;
	as_nobody(CAP(CAP_FSETID), CAP(CAP_FSETID), c_refused);
	expect_fixture_unchanged();
}

static void c_fowner(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "rootfile", 0600, 0));
	EXPECT_OK(sys_fchmodat2(wfd, "rootdir", 0700, NOFOLLOW));
	EXPECT_ERR(sys_fchmodat2(wfd, "rootlink", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_OK(sys_fchmodat2(wfd, "rootlink", 0640, 0));
}

static void cap_fowner_other_users_file_and_dir_changed_symlink_refused(void)
{
	if (fixture())
		return;
	as_nobody(CAP(CAP_FOWNER), CAP(CAP_FOWNER), c_fowner);
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 0640);
	EXPECT_MODE(wfd, "rootdir", S_IFDIR | 0700);
	EXPECT_MODE(wfd, "rootlink", S_IFLNK | 0777);
}

static void c_setgid_root_owned(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "rootfile", 02755, 0));
	EXPECT_OK(sys_fchmodat2(wfd, "rootdir", 02755, 0));
}

static void cap_fowner_other_users_file_setgid_cleared_without_fsetid(void)
{
	if (fixture())
		return;
	as_nobody(CAP(CAP_FOWNER), CAP(CAP_FOWNER), c_setgid_root_owned);
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 0755);
	EXPECT_MODE(wfd, "rootdir", S_IFDIR | 0755);
}

static void cap_fowner_fsetid_other_users_file_setgid_kept(void)
{
	unsigned long long caps = CAP(CAP_FOWNER) | CAP(CAP_FSETID);

	if (fixture())
		return;
	as_nobody(caps, caps, c_setgid_root_owned);
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 02755);
	EXPECT_MODE(wfd, "rootdir", S_IFDIR | 02755);
}

static void c_setgid_own(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "own", 06755, 0));
	EXPECT_OK(sys_fchmodat2(wfd, "owndir", 03755, 0));
}

static void no_caps_own_file_foreign_group_setgid_cleared_setuid_kept(void)
{
	if (fixture())
		return;
	as_nobody(0, 0, c_setgid_own);
	EXPECT_MODE(wfd, "own", S_IFREG | 04755);
	EXPECT_MODE(wfd, "owndir", S_IFDIR | 01755);
}

static void cap_fsetid_own_file_foreign_group_setgid_kept(void)
{
	if (fixture())
		return;
	as_nobody(CAP(CAP_FSETID), CAP(CAP_FSETID), c_setgid_own);
	EXPECT_MODE(wfd, "own", S_IFREG | 06755);
	EXPECT_MODE(wfd, "owndir", S_IFDIR | 03755);
}

/* ---------------------------------------------------------------------- */

/*
 * Root of a new user namespace that maps 0 to 65534 only: every
 * capability there, none over root's files, whose owner it cannot map.
 */
static void userns_root_without_owner_mapping_eperm_own_file_changed(void)
{
	int go[2], ready[2];
	char path[64], c;
	pid_t pid;
	int fd;

	if (fixture())
		return;
	if (pipe(go) || pipe(ready)) {
		setup_error("pipe", "", errno);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		t_state.failures = 0;
		close(go[1]);
		close(ready[0]);
		/* CAP_SYS_ADMIN: whatever the unprivileged-userns sysctls say */
		drop_to(CAP(CAP_SYS_ADMIN), CAP(CAP_SYS_ADMIN));
		c = unshare(CLONE_NEWUSER) ? 'E' : 'u';
		if (write(ready[1], &c, 1) != 1 || c == 'E' ||
		    read(go[0], &c, 1) != 1 || c != 'g')
			_exit(3);
		if (geteuid() != 0) {
			diag("not root in the user namespace: euid %d",
			     (int)geteuid());
			_exit(4);
		}
		c_refused();
		EXPECT_OK(sys_fchmodat2(wfd, "own", 02700, 0));
		t_child_exit();
	}
	close(go[0]);
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'u') {
		if (pid > 0)
			t_skip("unshare(CLONE_NEWUSER) refused");
		else
			setup_error("fork", "", errno);
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0 65534 1\n", 10) != 10)
		setup_error("writing", path, errno);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0 65534 1\n", 10) != 10)
		setup_error("writing", path, errno);
	if (fd >= 0)
		close(fd);
	c = 'g';
	if (write(go[1], &c, 1) != 1)
		setup_error("pipe", "", errno);
out:
	close(go[1]);
	close(ready[0]);
	if (pid > 0) {
		if (t_state.skip_reason[0])
			t_wait(pid);
		else
			t_expect_child(pid);
	}
	expect_fixture_unchanged();
	/* group root is not mapped in there: S_ISGID cleared */
	if (!t_state.skip_reason[0])
		EXPECT_MODE(wfd, "own", S_IFREG | 0700);
}

/* ---------------------------------------------------------------------- */

/*
 * An idmapped mount (5.12+): the module hands the mount's idmapping to
 * notify_change() (a struct user_namespace before 6.3, a struct mnt_idmap
 * since), so ownership is judged as the mount shows it.
 */
#define IDMAP_ID	1000	/* root's files show as 1000 through it */

struct subsys_mount_attr {
	unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr	442
#endif
#define F2_OPEN_TREE_CLONE	1
#define F2_MOUNT_ATTR_IDMAP	0x00100000

/* A user namespace mapping 0 to @id (uid and gid), as an fd; or -1. */
static int userns_fd(unsigned int id)
{
	char path[64], map[32];
	int p[2], fd = -1, len;
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		c = unshare(CLONE_NEWUSER) ? 'E' : 'u';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'u')
		goto out;
	len = snprintf(map, sizeof(map), "0 %u 1\n", id);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, map, len) != len)
		goto out_close;
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, map, len) != len)
		goto out_close;
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	goto out;
out_close:
	if (fd >= 0)
		close(fd);
	fd = -1;
out:
	close(p[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return fd;
}

static int idmapped_fd = -1;

static void c_idmapped(void)
{
	/* root:root 0644 on disk, 1000:1000 through the idmapped mount */
	EXPECT_OK(sys_fchmodat2(idmapped_fd, "rootfile", 02600, 0));
	EXPECT_ERR(sys_fchmodat2(wfd, "rootfile", 0640, 0), EPERM);
	EXPECT_OK(sys_fchmodat2(idmapped_fd, "rootdir", 0700, NOFOLLOW));
	EXPECT_ERR(sys_fchmodat2(idmapped_fd, "rootlink", 0600, NOFOLLOW),
		   EOPNOTSUPP);
	/* 65534 on disk has no mapping there */
	EXPECT_ERR(sys_fchmodat2(idmapped_fd, "own", 0600, 0), EOVERFLOW);
}

static void idmapped_mount_owner_judged_through_the_mount(void)
{
	struct subsys_mount_attr attr = { .attr_set = F2_MOUNT_ATTR_IDMAP };
	int ns;

	if (fixture())
		return;
	ns = userns_fd(IDMAP_ID);
	if (ns < 0) {
		t_skip("cannot make a user namespace (%s)", errno_name(errno));
		return;
	}
	attr.userns_fd = ns;
	idmapped_fd = syscall(SYS_open_tree, wfd, "",
			      F2_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
	if (idmapped_fd < 0) {
		setup_error("open_tree", work, errno);
		goto out_close_ns;
	}
	if (syscall(SYS_mount_setattr, idmapped_fd, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr))) {
		if (errno == ENOSYS)
			t_skip("no idmapped mounts (mount_setattr: ENOSYS)");
		else if (errno == EINVAL)
			t_skip("this filesystem cannot be idmapped (mount_setattr: EINVAL)");
		else
			setup_error("mount_setattr", work, errno);
		goto out_close_tree;
	}
	/* root itself: the owner 65534 cannot be shown there */
	EXPECT_ERR(sys_fchmodat2(idmapped_fd, "own", 0600, 0), EOVERFLOW);
	{
		pid_t pid;

		pid = t_fork();
		if (pid == 0) {
			drop_to_id(IDMAP_ID, 0, 0);
			c_idmapped();
			t_child_exit();
		}
		t_expect_child(pid);
	}
	/* group root shows as 1000, the caller's: S_ISGID kept */
	EXPECT_MODE(wfd, "rootfile", S_IFREG | 02600);
	EXPECT_MODE(wfd, "rootdir", S_IFDIR | 0700);
	EXPECT_MODE(wfd, "rootlink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "own", S_IFREG | 0644);
out_close_tree:
	if (idmapped_fd >= 0)
		close(idmapped_fd);
	idmapped_fd = -1;
out_close_ns:
	close(ns);
}

static const struct subsys_case cases[] = {
	CASE(no_caps_other_users_file_eperm),
	CASE(cap_fowner_permitted_not_effective_eperm),
	CASE(every_cap_but_fowner_other_users_file_eperm),
	CASE(cap_fsetid_alone_other_users_file_eperm),
	CASE(cap_fowner_other_users_file_and_dir_changed_symlink_refused),
	CASE(cap_fowner_other_users_file_setgid_cleared_without_fsetid),
	CASE(cap_fowner_fsetid_other_users_file_setgid_kept),
	CASE(no_caps_own_file_foreign_group_setgid_cleared_setuid_kept),
	CASE(cap_fsetid_own_file_foreign_group_setgid_kept),
	CASE(userns_root_without_owner_mapping_eperm_own_file_changed),
	CASE(idmapped_mount_owner_judged_through_the_mount),
};

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"rootfile", "rootlink", "own", NULL
	};
	static const char * const dirs[] = { "rootdir", "owndir", NULL };
	const char *parent = subsys_dir_option(argc, argv);

	t_plan(ARRAY_SIZE(cases));
	umask(0);
	if (geteuid() != 0) {
		diag("must run as root");
		return 1;
	}
	wfd = subsys_workdir(parent, "creds", work, sizeof(work));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
