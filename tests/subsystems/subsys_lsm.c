// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_lsm - an AppArmor profile that denies chmod ("w") below DIR/deny
 * refuses fchmodat2 (452) exactly as it refuses fchmodat: EACCES, the
 * mode unchanged, an apparmor="DENIED" operation="chmod" line in the
 * kernel log naming the file; allowed paths stay allowed. The LSM hook
 * comes after the lookup and the flags check, and before the symlink
 * refusal (EACCES, not EOPNOTSUPP, for a denied symlink).
 *
 * Usage: subsys_lsm -d DIR -p PROFILE
 *   DIR is fixed (the profile names it); PROFILE must be loaded already,
 *   (guest.sh writes it: all allowed but "w" below DIR/deny).
 *   The confined part runs in a child after "changeprofile PROFILE".
 */
#include "subsys.h"

#include <sys/klog.h>

static const char *dir, *profile;
static int wfd = -1;
static bool confined_ok;

/* Run @fn confined by the profile, in a child. */
static void confined(void (*fn)(void))
{
	pid_t pid;

	pid = t_fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		char cmd[128];
		int fd, len;

		len = snprintf(cmd, sizeof(cmd), "changeprofile %s", profile);
		fd = open("/proc/self/attr/current", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, cmd, len) != len) {
			diag("changeprofile %s: %s", profile, errno_name(errno));
			_exit(2);
		}
		close(fd);
		fn();
		t_child_exit();
	}
	t_expect_child(pid);
}

static int fixture(void)
{
	static const char * const files[] = {
		"deny/new", "deny/old", "allow/file",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		if (make_file(wfd, files[i], 0644))
			return -1;
	return make_link(wfd, "deny/link", "new") ||
	       make_link(wfd, "allow/link", "file");
}

static void expect_denied_unchanged(void)
{
	EXPECT_MODE(wfd, "deny/new", S_IFREG | 0644);
	EXPECT_MODE(wfd, "deny/old", S_IFREG | 0644);
	EXPECT_MODE(wfd, "deny/link", S_IFLNK | 0777);
}

/* ---------------------------------------------------------------------- */

static void c_confined(void)
{
	char label[128] = "";
	int fd = open("/proc/self/attr/current", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, label, sizeof(label) - 1);

		label[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (strncmp(label, profile, strlen(profile))) {
		diag("confined by \"%s\", not %s", label, profile);
		t_state.failures++;
	}
}

static void profile_confines_the_child(void)
{
	confined(c_confined);
	confined_ok = !t_state.failures;
}

static void c_denied(void)
{
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/new", 0600, 0), EACCES);
	EXPECT_ERR(syscall(SYS_fchmodat, wfd, "deny/old", 0600), EACCES);
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/new", 0644, NOFOLLOW), EACCES);
}

static void denied_path_fchmodat2_eacces_as_fchmodat(void)
{
	if (fixture())
		return;
	confined(c_denied);
	expect_denied_unchanged();
}

static void c_symlink(void)
{
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/link", 0600, NOFOLLOW), EACCES);
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/link", 0600, 0), EACCES);
}

static void denied_symlink_eacces_before_eopnotsupp(void)
{
	if (fixture())
		return;
	confined(c_symlink);
	expect_denied_unchanged();
}

static int opath_fd = -1;

static void c_opath(void)
{
	EXPECT_ERR(sys_fchmodat2(opath_fd, "", 0600, AT_EMPTY_PATH), EACCES);
}

static void denied_opath_fd_empty_path_eacces(void)
{
	if (fixture())
		return;
	opath_fd = openat(wfd, "deny/new", O_PATH | O_CLOEXEC);
	if (!t_setup(opath_fd >= 0, "open", "deny/new"))
		return;
	confined(c_opath);
	close(opath_fd);
	expect_denied_unchanged();
}

static void c_order(void)
{
	/* what comes before the LSM hook still comes first */
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/new", 0600, 0x200), EINVAL);
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/missing", 0600, 0), ENOENT);
	EXPECT_ERR(sys_fchmodat2(wfd, "deny/new/", 0600, 0), ENOTDIR);
}

static void lookup_and_flag_errors_before_the_lsm(void)
{
	if (fixture())
		return;
	confined(c_order);
	expect_denied_unchanged();
}

static void c_allowed(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "allow/file", 0600, 0));
	EXPECT_OK(sys_fchmodat2(wfd, "allow/link", 0640, 0));
	EXPECT_ERR(sys_fchmodat2(wfd, "allow/link", 0600, NOFOLLOW),
		   EOPNOTSUPP);
}

static void allowed_path_mode_changed_under_the_profile(void)
{
	if (fixture())
		return;
	confined(c_allowed);
	EXPECT_MODE(wfd, "allow/file", S_IFREG | 0640);
	EXPECT_MODE(wfd, "allow/link", S_IFLNK | 0777);
}

/*
 * The kernel log has a denial naming @name (kauditd prints it a moment
 * later, so wait a little).
 */
static bool denial_logged(const char *name)
{
	static char buf[1 << 20];
	char needle[512];
	int i, n;

	snprintf(needle, sizeof(needle), "name=\"%s/%s\"", dir, name);
	for (i = 0; i < 30; i++) {
		char *p;

		n = klogctl(3, buf, sizeof(buf) - 1);	/* SYSLOG_ACTION_READ_ALL */
		if (n < 0)
			return false;
		buf[n] = '\0';
		for (p = strstr(buf, needle); p; p = strstr(p + 1, needle)) {
			char *bol = p, *eol = strchr(p, '\n');

			while (bol > buf && bol[-1] != '\n')
				bol--;
			if (eol)
				*eol = '\0';
			if (strstr(bol, "apparmor=\"DENIED\"") &&
			    strstr(bol, "operation=\"chmod\"")) {
				diag("%s", bol);
				return true;
			}
			if (eol)
				*eol = '\n';
		}
		usleep(100000);
	}
	return false;
}

static void denial_logged_for_fchmodat2_as_for_fchmodat(void)
{
	/* after the cases above */
	if (!denial_logged("deny/old")) {
		diag("no denial logged for fchmodat");
		t_state.failures++;
	}
	if (!denial_logged("deny/new")) {
		diag("no denial logged for fchmodat2");
		t_state.failures++;
	}
	if (!denial_logged("deny/link")) {
		diag("no denial logged for fchmodat2 on the symlink");
		t_state.failures++;
	}
}

static const struct subsys_case cases[] = {
	CASE(profile_confines_the_child),
	CASE(denied_path_fchmodat2_eacces_as_fchmodat),
	CASE(denied_symlink_eacces_before_eopnotsupp),
	CASE(denied_opath_fd_empty_path_eacces),
	CASE(lookup_and_flag_errors_before_the_lsm),
	CASE(allowed_path_mode_changed_under_the_profile),
	CASE(denial_logged_for_fchmodat2_as_for_fchmodat),
};

int main(int argc, char **argv)
{
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "d:p:")) != -1) {
		if (c == 'd') {
			dir = optarg;
		} else if (c == 'p') {
			profile = optarg;
		} else {
			dir = NULL;
			break;
		}
	}
	if (!dir || !profile || optind != argc) {
		fprintf(stderr, "usage: %s -d DIR -p PROFILE\n", argv[0]);
		return 2;
	}
	t_plan(ARRAY_SIZE(cases));
	umask(0);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		diag("mkdir %s: %s", dir, errno_name(errno));
		return 1;
	}
	wfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0 || (mkdirat(wfd, "deny", 0755) && errno != EEXIST) ||
	    (mkdirat(wfd, "allow", 0755) && errno != EEXIST)) {
		diag("%s: %s", dir, errno_name(errno));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* unconfined, every case would wrongly pass or fail alike */
		if (i && !confined_ok) {
			t_result(false, "%s", cases[i].name);
			continue;
		}
		subsys_case(cases[i].name, cases[i].fn);
	}
	return t_finish();
}
