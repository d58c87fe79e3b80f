/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the gatekeeper test programs share: the raw fchmodat2 call,
 * TAP output (one "ok"/"not ok" line per case, named by the property it
 * checks) and checks that print a diagnostic and count a failure.
 *
 * Each program is built twice, static: 64-bit and -m32. Every case
 * compares errno and the full st_mode, never only the return value.
 */
#ifndef GK_H
#define GK_H

#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "../tap.h"

#include "../../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

#define NOFOLLOW	AT_SYMLINK_NOFOLLOW
#define NOBODY		65534

static inline long sys_fchmodat2(int dfd, const char *path, unsigned int mode,
				 unsigned int flags)
{
	return syscall(__NR_fchmodat2, dfd, path, mode, flags);
}

static unsigned int gk_num, gk_nfail, gk_nskip;
static int gk_failures;
static char gk_skip[160];

static inline void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gk_skip, sizeof(gk_skip), fmt, ap);
	va_end(ap);
}

static inline void gk_begin(unsigned int planned)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n", planned);
}

/* Run one case: its name states the property; a skip says why. */
static inline void gk_case(const char *name, void (*fn)(void))
{
	gk_failures = 0;
	gk_skip[0] = '\0';
	fflush(stdout);
	fn();
	gk_num++;
	if (gk_failures) {
		printf("not ok %u %s\n", gk_num, name);
		gk_nfail++;
	} else if (gk_skip[0]) {
		printf("ok %u %s # SKIP %s\n", gk_num, name, gk_skip);
		gk_nskip++;
	} else {
		printf("ok %u %s\n", gk_num, name);
	}
	fflush(stdout);
}

static inline int gk_end(void)
{
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       gk_num - gk_nfail - gk_nskip, gk_nfail, gk_nskip);
	return gk_nfail ? 1 : 0;
}

static inline void expect_result(int line, const char *expr, long ret,
				 int err, int want)
{
	if ((!want && ret == 0) || (want && ret == -1 && err == want))
		return;
	gk_failures++;
	if (ret == -1)
		diag("line %d: %s: expected %s, got -1/%s", line, expr,
		     want ? errno_name(want) : "0", errno_name(err));
	else
		diag("line %d: %s: expected %s, got %ld", line, expr,
		     want ? errno_name(want) : "0", ret);
}

/* errno is sampled right after the call */
#define EXPECT_RESULT(call, want)					\
	do {								\
		long _ret;						\
		int _err;						\
									\
		errno = 0;						\
		_ret = (call);						\
		_err = errno;						\
		expect_result(__LINE__, #call, _ret, _err, want);	\
	} while (0)
#define EXPECT_OK(call)		EXPECT_RESULT(call, 0)
#define EXPECT_ERR(call, err)	EXPECT_RESULT(call, err)

static inline void expect_mode(int line, int dfd, const char *path,
			       unsigned int want)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		gk_failures++;
		diag("line %d: lstat %s: %s", line, path, errno_name(errno));
	} else if (st.st_mode != want) {
		gk_failures++;
		diag("line %d: lstat %s: expected mode 0%o, got 0%o", line,
		     path, want, (unsigned int)st.st_mode);
	}
}

#define EXPECT_MODE(dfd, path, want) expect_mode(__LINE__, dfd, path, want)

static inline void expect_eq(int line, const char *expr, long long got,
			     long long want)
{
	if (got == want)
		return;
	gk_failures++;
	diag("line %d: %s: expected %lld, got %lld", line, expr, want, got);
}

#define EXPECT_EQ(got, want) expect_eq(__LINE__, #got, got, want)

/* A fixture could not be built: the case fails, it does not skip. */
static inline void setup_error(const char *what, const char *name)
{
	diag("setup: %s %s: %s", what, name, errno_name(errno));
	gk_failures++;
}

static inline int make_file(int dfd, const char *name, unsigned int mode)
{
	int fd;

	unlinkat(dfd, name, 0);
	fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0 || fchmod(fd, mode)) {
		setup_error("create", name);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static inline int make_link(int dfd, const char *name, const char *target)
{
	unlinkat(dfd, name, 0);
	if (symlinkat(target, dfd, name)) {
		setup_error("symlink", name);
		return -1;
	}
	return 0;
}

/*
 * Wait for @pid; returns its wait status, or -1 (a failure is counted).
 * Exit status 0 is the child's "all checks passed".
 */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		setup_error("waitpid", "");
		return -1;
	}
	return status;
}

/* The child's checks print their own diagnostics; its exit status counts. */
static inline void expect_child_ok(pid_t pid)
{
	int status = wait_child(pid);

	if (status < 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	gk_failures++;
	if (WIFEXITED(status))
		diag("child failed (exit status %d)", WEXITSTATUS(status));
	else
		diag("child killed by signal %d", WTERMSIG(status));
}

/* A new empty directory below @parent for one program's run; its fd. */
static inline int gk_workdir(const char *parent, const char *tag, char *path,
			     size_t size)
{
	int fd;

	snprintf(path, size, "%s/gk-%s.XXXXXX", parent ? parent : "/tmp", tag);
	if (!mkdtemp(path) || chmod(path, 0755)) {
		diag("work directory %s: %s", path, errno_name(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		diag("open %s: %s", path, errno_name(errno));
	return fd;
}

/* A program's cases, each a function named by the property it checks. */
struct gk_case {
	const char *name;
	void (*fn)(void);
};

#define GK_CASE(fn) { #fn, fn }

/*
 * Run @cases in order, or only the one named @only (if not NULL). Without
 * a work directory (@wfd < 0) each case fails: none can be tried.
 */
static inline void gk_run_cases(const struct gk_case *cases, unsigned int n,
				const char *only, int wfd)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (only && strcmp(cases[i].name, only))
			continue;
		if (wfd < 0) {
			printf("not ok %u %s\n", ++gk_num, cases[i].name);
			gk_nfail++;
			continue;
		}
		gk_case(cases[i].name, cases[i].fn);
	}
}

/* The -d DIR option, the only one most programs take: DIR, or NULL. */
static inline const char *gk_dir_option(int argc, char **argv)
{
	const char *dir = NULL;
	int c;

	while ((c = getopt(argc, argv, "d:")) != -1) {
		if (c != 'd') {
			fprintf(stderr, "usage: %s [-d DIR]\n", argv[0]);
			exit(2);
		}
		dir = optarg;
	}
	return dir;
}

/*
 * The start of a root-only program that takes -d DIR: the TAP plan, umask
 * 0, the check for root (exit 1 otherwise), and gk_workdir()'s directory
 * below DIR for @tag: its fd, or -1.
 */
static inline int gk_root_begin(int argc, char **argv, unsigned int planned,
				const char *tag, char *work, size_t size)
{
	const char *dir = gk_dir_option(argc, argv);

	gk_begin(planned);
	umask(0);
	if (geteuid() != 0) {
		diag("must run as root");
		exit(1);
	}
	return gk_workdir(dir, tag, work, size);
}

/*
 * Remove gk_workdir()'s directory @work (open as @wfd, if >= 0) and what
 * the cases left in it: @files, then @dirs (NULL-terminated lists).
 */
static inline void gk_remove_workdir(int wfd, const char *work,
				     const char * const *files,
				     const char * const *dirs)
{
	if (wfd < 0)
		return;
	for (; files && *files; files++)
		unlinkat(wfd, *files, 0);
	for (; dirs && *dirs; dirs++)
		unlinkat(wfd, *dirs, AT_REMOVEDIR);
	close(wfd);
	if (rmdir(work))
		diag("rmdir %s: %s", work, errno_name(errno));
}

/* IN_ATTRIB events pending on @in (for a directory watch, named @name) */
static inline int gk_attrib_events(int in, const char *name)
{
	union {
		struct inotify_event ev;
		char buf[4096];
	} u;
	const struct inotify_event *ev;
	struct pollfd p = { .fd = in, .events = POLLIN };
	int n = 0;
	ssize_t len, off;

	while (poll(&p, 1, 100) > 0) {
		len = read(in, u.buf, sizeof(u.buf));
		if (len <= 0)
			break;
		for (off = 0; off < len; off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(u.buf + off);
			if (!(ev->mask & IN_ATTRIB))
				continue;
			if (name && (!ev->len || strcmp(ev->name, name)))
				diag("IN_ATTRIB for \"%s\", not %s",
				     ev->len ? ev->name : "", name);
			n++;
		}
	}
	return n;
}

/* An IN_ATTRIB watch on @work/@name, in *@in. */
static inline int gk_watch(const char *work, const char *name, int *in)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", work, name);
	*in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (*in < 0 || inotify_add_watch(*in, path, IN_ATTRIB) < 0) {
		setup_error("inotify", path);
		return -1;
	}
	return 0;
}

#endif /* GK_H */
