// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_nfs - fchmodat2 over NFSv4.2, client and server on one machine: the
 * kernel's nfsd exports a directory (set up through /proc/fs/nfsd and
 * the export caches, as rpc.nfsd and rpc.mountd would: ../nfs_loopback.h),
 * and the kernel's NFS client mounts it back over the loopback interface.
 *
 *   - on the client: a regular file changes on the server, a symlink with
 *     AT_SYMLINK_NOFOLLOW is refused before any request is sent;
 *   - on the server, while the client holds a read delegation on the
 *     file: notify_change() hands back the delegated inode, the call waits
 *     for the delegation in break_deleg_wait() and retries (the filelock
 *     trace events show the blocking break), and the mode changes;
 *   - the ESTALE retry: the client's cached dentry names a file the
 *     server replaced; the first SETATTR gets NFS4ERR_STALE, the path is
 *     looked up again (LOOKUP_REVAL) and the new file changes (the nfs4
 *     trace events show both SETATTRs).
 *
 * Usage: subsys_nfs -d DIR (on tmpfs; exported as the NFSv4 root, and the
 * client mounts it on DIR/../subsys-nfs-mnt). Needs the nfsd and nfsv4
 * modules loaded, /proc mounted. VM only: nfsd is machine-wide.
 */
#include "subsys.h"

#include "../nfs_loopback.h"

#define TRACING		"/sys/kernel/tracing"

static int wfd = -1, mfd = -1;
static char work[PATH_MAX / 2], mnt[PATH_MAX / 2];
static bool served, mounted;

static int put_or_fail(const char *path, const char *text)
{
	int err = nfs_put(path, text);

	if (err) {
		errno = -err;
		setup_error("write", path, errno);
	}
	return err;
}

/* nfsd serves @work over the loopback interface, mounted on @mnt */
static void server_and_client_set_up(void)
{
	const char *failed = nfs_serve(work);

	if (failed) {
		setup_error("nfs:", failed, errno);
		return;
	}
	served = true;
	if (!t_setup(!nfs_mount(mnt), "mount nfs4 127.0.0.1:/ on", mnt))
		return;
	mounted = true;
	mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		setup_error("open", mnt, errno);
	/* no delegation is granted in the grace period */
	sleep(11);
}

static bool ready(void)
{
	if (mfd >= 0)
		return true;
	setup_error("nfs", "not set up (see the first case)", errno);
	return false;
}

static void client_regular_file_changed_on_the_server(void)
{
	if (!ready() || make_file(wfd, "cfile", 0644))
		return;
	EXPECT_MODE(mfd, "cfile", S_IFREG | 0644);
	EXPECT_OK(sys_fchmodat2(mfd, "cfile", 0600, 0));
	EXPECT_MODE(mfd, "cfile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "cfile", S_IFREG | 0600);
	EXPECT_OK(sys_fchmodat2(mfd, "cfile", 0640, NOFOLLOW));
	EXPECT_MODE(wfd, "cfile", S_IFREG | 0640);
}

static void client_symlink_nofollow_eopnotsupp_followed_changes_target(void)
{
	if (!ready() || make_file(wfd, "cfile2", 0644) ||
	    make_link(wfd, "clink", "cfile2"))
		return;
	EXPECT_ERR(sys_fchmodat2(mfd, "clink", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_MODE(mfd, "clink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "clink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "cfile2", S_IFREG | 0644);
	EXPECT_OK(sys_fchmodat2(mfd, "clink", 0604, 0));
	EXPECT_MODE(wfd, "cfile2", S_IFREG | 0604);
	EXPECT_MODE(wfd, "clink", S_IFLNK | 0777);
}

/* Enable (@on) the trace events @events (NULL-terminated), clear the buffer. */
static int trace_events(const char * const *events, bool on)
{
	char path[256];

	if (mount("nodev", TRACING, "tracefs", 0, NULL) && errno != EBUSY) {
		setup_error("mount", TRACING, errno);
		return -1;
	}
	for (; *events; events++) {
		snprintf(path, sizeof(path), TRACING "/events/%s/enable",
			 *events);
		if (put_or_fail(path, on ? "1" : "0"))
			return -1;
	}
	if (on) {
		/* opening the buffer with O_TRUNC clears it */
		int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

		if (fd < 0) {
			setup_error("clear", TRACING "/trace", errno);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* How many lines of the trace buffer hold @a (and @b, if not NULL). */
static int trace_count(const char *a, const char *b)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(TRACING "/trace", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, a) && (!b || strstr(line, b))) {
			n++;
			printf("# trace: %s", line);
		}
	}
	fclose(f);
	return n;
}

static void server_chmod_breaks_a_read_delegation_and_retries(void)
{
	static const char * const events[] = {
		"filelock/break_lease_noblock", "filelock/break_lease_block",
		NULL
	};
	struct stat st;
	int fd;

	if (!ready() || make_file(wfd, "dfile", 0644) ||
	    fstatat(wfd, "dfile", &st, 0))
		return;
	fd = nfs_open_delegated(mfd, "dfile", st.st_ino);
	if (fd < 0) {
		t_fail("the client holds no read delegation on dfile: %s",
		       errno_name(errno));
		return;
	}
	if (trace_events(events, true))
		goto out;
	EXPECT_OK(sys_fchmodat2(wfd, "dfile", 0600, 0));
	EXPECT_MODE(wfd, "dfile", S_IFREG | 0600);
	EXPECT_EQ(trace_count("break_lease_noblock", "subsys_nfs"), 1);
	EXPECT_EQ(trace_count("break_lease_block", "subsys_nfs") > 0, 1);
	EXPECT_EQ(nfs_delegated(st.st_ino, false), 0);
	trace_events(events, false);
out:
	close(fd);
}

static void client_estale_after_replace_retried_with_a_new_lookup(void)
{
	static const char * const events[] = { "nfs4/nfs4_setattr", NULL };
	struct stat old, now;

	if (!ready() || make_file(wfd, "efile", 0644))
		return;
	/* the client caches the dentry and its file handle */
	if (!t_setup(!fstatat(mfd, "efile", &old, 0),
		     "stat", "efile on the client"))
		return;
	/* the server replaces the file */
	if (unlinkat(wfd, "efile", 0) || make_file(wfd, "efile", 0644) ||
	    fstatat(wfd, "efile", &now, 0)) {
		setup_error("replace", "efile", errno);
		return;
	}
	if (now.st_ino == old.st_ino)
		diag("the new efile has the old inode number");
	if (trace_events(events, true))
		return;
	EXPECT_OK(sys_fchmodat2(mfd, "efile", 0600, 0));
	EXPECT_MODE(wfd, "efile", S_IFREG | 0600);
	EXPECT_MODE(mfd, "efile", S_IFREG | 0600);
	/* the first SETATTR, with the old file handle, is stale */
	EXPECT_EQ(trace_count("nfs4_setattr", "STALE"), 1);
	EXPECT_EQ(trace_count("nfs4_setattr", NULL), 2);
	trace_events(events, false);
}

static const struct subsys_case cases[] = {
	CASE(server_and_client_set_up),
	CASE(client_regular_file_changed_on_the_server),
	CASE(client_symlink_nofollow_eopnotsupp_followed_changes_target),
	CASE(server_chmod_breaks_a_read_delegation_and_retries),
	CASE(client_estale_after_replace_retried_with_a_new_lookup),
};

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"cfile", "cfile2", "clink", "dfile", "efile", NULL
	};
	const char *dir = subsys_dir_option(argc, argv);

	t_plan(ARRAY_SIZE(cases));
	umask(0);
	if (geteuid() != 0 || !dir) {
		diag("usage: subsys_nfs -d DIR, as root");
		return 1;
	}
	snprintf(mnt, sizeof(mnt), "%s/../subsys-nfs-mnt", dir);
	if (mkdir(mnt, 0755) && errno != EEXIST)
		diag("mkdir %s: %s", mnt, errno_name(errno));
	wfd = subsys_workdir(dir, "nfs", work, sizeof(work));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	if (mfd >= 0)
		close(mfd);
	if (mounted && umount(mnt))
		diag("umount %s: %s", mnt, errno_name(errno));
	if (served)
		nfs_stop();
	subsys_remove_workdir(wfd, work, files, NULL);
	rmdir(mnt);
	return t_finish();
}
