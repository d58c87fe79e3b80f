// SPDX-License-Identifier: GPL-2.0
/*
 * libtest - unit tests of libfchmodat2: fchmodat2() (the raw system call)
 * and fchmodat2_compat() (glibc 2.39's fchmodat(): 452, then on ENOSYS
 * the O_PATH + /proc emulation).
 *
 * Every case runs in a fresh directory holding "file" (0644) and "link"
 * (-> file), and checks the return value, errno, and the st_mode of both.
 * Sections:
 *   raw      fchmodat2(): the kernel's answers, or ENOSYS everywhere;
 *   compat   fchmodat2_compat() as this kernel serves it: through 452
 *            when it exists, else through the emulation;
 *   emulated fchmodat2_compat() once a seccomp filter makes 452 ENOSYS
 *            (only when 452 exists): the real library's fallback, on a
 *            kernel that has the call.
 * With --no-proc (/proc must not be mounted) the emulation must fail the
 * way glibc's does there: EOPNOTSUPP, nothing changed.
 *
 * Output is TAP; exit status 0 when every case passed.
 *
 * Usage: libtest [--expect=syscall|enosys] [--no-proc] [-d DIR]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "fchmodat2.h"
#include "../harness.h"

#define NEW_MODE	0600

enum path_kind { PK_NAME, PK_OPATH_FILE, PK_OPATH_LINK };

/* How fchmodat2 is answered: by the kernel, or by the emulation. */
enum answer { BY_KERNEL, BY_EMULATION, BY_EMULATION_NO_PROC, ANSWERS };

struct lib_case {
	const char *name;
	enum path_kind kind;
	const char *path;	/* PK_NAME: relative to the fixture */
	int flags;
	int want[ANSWERS];	/* 0 (and "file" gets NEW_MODE) or errno */
};

static const struct lib_case cases[] = {
	{ "file, flags 0: changes", PK_NAME, "file", 0,
	  { 0, 0, 0 } },
	{ "file, AT_SYMLINK_NOFOLLOW: changes (the emulation needs /proc)",
	  PK_NAME, "file", AT_SYMLINK_NOFOLLOW,
	  { 0, 0, EOPNOTSUPP } },
	{ "symlink, AT_SYMLINK_NOFOLLOW: EOPNOTSUPP, nothing changes",
	  PK_NAME, "link", AT_SYMLINK_NOFOLLOW,
	  { EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP } },
	{ "symlink, flags 0: the target changes", PK_NAME, "link", 0,
	  { 0, 0, 0 } },
	{ "unknown flag 0x1: EINVAL, nothing changes", PK_NAME, "file", 0x1,
	  { EINVAL, EINVAL, EINVAL } },
	{ "AT_REMOVEDIR | AT_SYMLINK_NOFOLLOW: EINVAL, nothing changes",
	  PK_NAME, "file", AT_REMOVEDIR | AT_SYMLINK_NOFOLLOW,
	  { EINVAL, EINVAL, EINVAL } },
	{ "AT_EMPTY_PATH on an O_PATH fd: changes (the emulation: EINVAL)",
	  PK_OPATH_FILE, "", AT_EMPTY_PATH,
	  { 0, EINVAL, EINVAL } },
	{ "AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW on an O_PATH symlink fd: EOPNOTSUPP (the emulation: EINVAL)",
	  PK_OPATH_LINK, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	  { EOPNOTSUPP, EINVAL, EINVAL } },
	{ "missing file, AT_SYMLINK_NOFOLLOW: ENOENT", PK_NAME, "missing",
	  AT_SYMLINK_NOFOLLOW, { ENOENT, ENOENT, ENOENT } },
	{ "empty path without AT_EMPTY_PATH: ENOENT", PK_NAME, "",
	  AT_SYMLINK_NOFOLLOW, { ENOENT, ENOENT, ENOENT } },
};

static const char * const answer_names[] = {
	[BY_KERNEL] = "kernel",
	[BY_EMULATION] = "emulation",
	[BY_EMULATION_NO_PROC] = "emulation without /proc",
};

static char workdir[4096];
/* The fixture: a fresh directory with file (0644) and link -> file. */
static int fixture(unsigned int n, unsigned int *link_mode)
{
	char name[32];
	struct stat st;
	int dfd, fd;

	snprintf(name, sizeof(name), "case%u", n);
	if (mkdirat(AT_FDCWD, name, 0755))
		return -1;
	dfd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, "file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 || fchmod(fd, 0644) || close(fd) ||
	    symlinkat("file", dfd, "link") ||
	    fstatat(dfd, "link", &st, AT_SYMLINK_NOFOLLOW)) {
		close(dfd);
		return -1;
	}
	*link_mode = st.st_mode;
	return dfd;
}

static void fixture_remove(unsigned int n, int dfd)
{
	char name[32];

	snprintf(name, sizeof(name), "case%u", n);
	unlinkat(dfd, "link", 0);
	unlinkat(dfd, "file", 0);
	close(dfd);
	unlinkat(AT_FDCWD, name, AT_REMOVEDIR);
}

typedef int (*chmod_fn)(int, const char *, mode_t, int);

static void run_case(const struct lib_case *c, const char *section,
		     chmod_fn fn, int want)
{
	static unsigned int serial;	/* the fixture's directory, case<serial> */
	unsigned int link_mode = 0;
	int dfd, fd = -1, ret, err;

	t_case_begin();
	serial++;
	dfd = fixture(serial, &link_mode);
	if (dfd < 0) {
		t_fail("setup: %s", errno_name(errno));
		t_case_end("%s: %s", section, c->name);
		return;
	}
	if (c->kind == PK_OPATH_FILE)
		fd = openat(dfd, "file", O_PATH | O_CLOEXEC);
	else if (c->kind == PK_OPATH_LINK)
		fd = openat(dfd, "link", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (c->kind != PK_NAME && fd < 0)
		t_fail("setup: O_PATH open: %s", errno_name(errno));

	errno = 0;
	ret = fn(c->kind == PK_NAME ? dfd : fd, c->path, NEW_MODE, c->flags);
	err = errno;
	expect_result(__FILE__, __LINE__, "the call", ret, err, want);
	EXPECT_MODE(dfd, "file", S_IFREG | (want ? 0644 : NEW_MODE));
	EXPECT_MODE(dfd, "link", link_mode);
	if (fd >= 0)
		close(fd);
	fixture_remove(serial, dfd);
	t_case_end("%s: %s", section, c->name);
}

/* A filter that makes 452 ENOSYS, as on a kernel without it. */
static int block_fchmodat2(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fchmodat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* One function's cases: a KTAP subtest of the program's, named @section. */
static void run_section(const char *section, chmod_fn fn, int answer,
			bool enosys)
{
	const char *by = enosys ? "kernel (ENOSYS)" : answer_names[answer];
	size_t i;

	t_subtest_begin(ARRAY_SIZE(cases), "%s: answered by the %s", section,
			by);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int want = cases[i].want[answer];

		if (enosys)
			want = ENOSYS;
		run_case(&cases[i], section, fn, want);
	}
	t_subtest_end();
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: libtest [--expect=syscall|enosys] [--no-proc] [-d DIR]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect", required_argument, NULL, 'e' },
		{ "no-proc", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *parent = getenv("TMPDIR"), *expect = NULL;
	bool no_proc = false, have_syscall, have_proc;
	int c, emulated;
	size_t plan;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			parent = optarg;
			break;
		case 'e':
			expect = optarg;
			break;
		case 'n':
			no_proc = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (expect && strcmp(expect, "syscall") &&
			       strcmp(expect, "enosys"))) {
		usage(stderr);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* invalid flags: EINVAL before any lookup, or ENOSYS */
	have_syscall = !(fchmodat2(AT_FDCWD, "", 0, -1) == -1 &&
			 errno == ENOSYS);
	have_proc = access("/proc/self/fd", F_OK) == 0;
	emulated = BY_EMULATION;
	if (no_proc)
		emulated = BY_EMULATION_NO_PROC;

	/* /proc, two sections (subtests); --expect; seccomp, a section */
	plan = 1 + 2;
	if (expect)
		plan++;
	if (have_syscall)
		plan += 2;
	t_plan(plan);
	diag("system call %d: %s; /proc/self/fd: %s", __NR_fchmodat2,
	     have_syscall ? "available" : "ENOSYS",
	     have_proc ? "there" : "absent");

	if (expect)
		t_result(have_syscall == !strcmp(expect, "syscall"),
			 "system call %d is %s, as expected", __NR_fchmodat2,
			 !strcmp(expect, "syscall") ? "available" : "ENOSYS");
	t_result(have_proc != no_proc, "/proc/self/fd is %s",
		 no_proc ? "absent (--no-proc)" : "there");

	snprintf(workdir, sizeof(workdir), "%s/libtest.XXXXXX",
		 parent ? parent : "/tmp");
	if (!mkdtemp(workdir) || chdir(workdir)) {
		diag("cannot create a work directory in %s: %s",
		     parent ? parent : "/tmp", errno_name(errno));
		return 1;
	}

	run_section("raw", fchmodat2, BY_KERNEL, !have_syscall);
	run_section("compat", fchmodat2_compat,
		    have_syscall ? BY_KERNEL : emulated, false);
	if (have_syscall) {
		t_case_begin();
		if (block_fchmodat2())
			t_fail("seccomp: %s", errno_name(errno));
		else
			EXPECT_ERR(fchmodat2(AT_FDCWD, "", 0, -1), ENOSYS);
		t_case_end("a seccomp filter makes system call %d ENOSYS",
			   __NR_fchmodat2);
		run_section("emulated", fchmodat2_compat, emulated, false);
	}

	if (chdir("/") || rmdir(workdir))
		diag("cannot remove %s: %s", workdir, errno_name(errno));
	return t_finish();
}
