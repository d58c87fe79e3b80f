/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test programs' one library: TAP output in the kselftest dialect,
 * cases with a name that states the property they check, checks that print
 * a diagnostic and count a failure, skips that say why.
 *
 *	t_plan(n);				TAP version 13, 1..n
 *	t_case_begin();				a case runs: its checks,
 *	EXPECT_ERR(call, EINVAL);		  EXPECT_* (or t_fail()),
 *	EXPECT_MODE(dfd, "file", S_IFREG | 0644);
 *	t_skip("no IA32 emulation");		  or a skip with its reason
 *	t_case_end("name_of_the_property");	ok / not ok / ok # SKIP
 *	t_result(ok, "...");			a one-line case
 *	t_subtest_begin(3, "ext4");		a case that is a KTAP subtest:
 *	  ...three cases...			  its own plan, indented,
 *	t_subtest_end();			  its result in the parent
 *	return t_finish();			# Totals; exit status
 *
 * A case fails if any of its checks failed, skips only if none did and it
 * gave a reason. t_finish() counts a plan that does not match the cases
 * run as a failure: a program that stops early or runs a case twice does
 * not pass; so does t_subtest_end() for its subtest's plan.
 *
 * Every EXPECT_* is also an expression, true if the check held: kselftest's
 * ASSERT_* (a failure ends the case) is "if (!EXPECT_...(...)) return;" in
 * the case's function, and a fixture step that must hold is
 * "if (!t_setup(fd >= 0, "open", name)) return;". (A macro that returns
 * hides flow control, which the kernel's style rejects; one that
 * longjmp()s would land a forked child in its parent's loop.)
 *
 * Header-only, so that every program builds static with one compiler
 * command on each ABI and libc; a program of several files defines
 * T_STATE_EXTERN before including it in all files but one.
 */
#ifndef F2_HARNESS_H
#define F2_HARNESS_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/*
 * printf-style checking of every format (it found an x32 mismatch), with
 * the kernel's spelling (include/linux/compiler_attributes.h; userspace
 * has no such header, tools/include defines it as here)
 */
#define T_ATTRIBUTE(x)	__attribute__((x))
#ifndef __printf
#define __printf(a, b)	T_ATTRIBUTE(format(printf, a, b))
#endif

#define T_MAX_DEPTH	4	/* subtests within subtests */

/* what a subtest's parent document had counted, and the subtest's name */
struct t_parent {
	unsigned int plan, num, pass, fail, skip;
	char name[200];
};

struct t_state {
	unsigned int plan;	/* cases announced by t_plan() */
	unsigned int num;	/* cases reported so far */
	unsigned int pass, fail, skip;
	int failures;		/* failed checks in the running case */
	char skip_reason[160];	/* why the running case skipped */
	unsigned int depth;	/* open subtests: four spaces of indent each */
	unsigned int too_deep;	/* subtests begun past T_MAX_DEPTH, not open */
	struct t_parent parent[T_MAX_DEPTH];
};

/*
 * One per program: defined where this header is included, unless the file
 * defines T_STATE_EXTERN first (the files of a program but one).
 */
#ifdef T_STATE_EXTERN
extern struct t_state t_state;
#else
struct t_state t_state;
#endif

/* a line's indent: four spaces per open subtest (KTAP) */
static inline void t_indent(void)
{
	printf("%*s", (int)(4 * t_state.depth), "");
}

static inline void t_vdiag(const char *fmt, va_list ap)
{
	t_indent();
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

/* A diagnostic line, flushed so that it stays before a child's output. */
__printf(1, 2)
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vdiag(fmt, ap);
	va_end(ap);
}

/* "EPERM" for EPERM, "0" for 0, "errno N" for what is not listed. */
static inline const char *errno_name(int err)
{
	static const char * const names[] = {
		[0] = "0",
		[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH",
		[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG",
		[EBADF] = "EBADF", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
		[EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY",
		[EEXIST] = "EEXIST", [EXDEV] = "EXDEV", [ENOTDIR] = "ENOTDIR",
		[EISDIR] = "EISDIR", [EINVAL] = "EINVAL", [EMFILE] = "EMFILE",
		[ENOTTY] = "ENOTTY", [ENOSPC] = "ENOSPC", [EROFS] = "EROFS",
		[ENAMETOOLONG] = "ENAMETOOLONG", [ENOSYS] = "ENOSYS",
		[ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP",
		[EOVERFLOW] = "EOVERFLOW", [EXFULL] = "EXFULL",
		[EOPNOTSUPP] = "EOPNOTSUPP", [ESTALE] = "ESTALE",
	};
	static char buf[24];

	if (err >= 0 && (size_t)err < ARRAY_SIZE(names) && names[err])
		return names[err];
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* TAP's header and plan; stdout line-buffered from here on. */
static inline void t_plan(unsigned int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n", n);
	t_state.plan = n;
}

/* The running case skips, for this reason (unless a check fails). */
__printf(1, 2)
static inline void t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_state.skip_reason, sizeof(t_state.skip_reason), fmt, ap);
	va_end(ap);
}

/* A failed check of the running case, and what was wrong. */
__printf(1, 2)
static inline void t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vdiag(fmt, ap);
	va_end(ap);
	t_state.failures++;
}

static inline void t_case_begin(void)
{
	t_state.failures = 0;
	t_state.skip_reason[0] = '\0';
	fflush(stdout);
}

static inline void t_case_report(const char *name)
{
	t_state.num++;
	t_indent();
	if (t_state.failures) {
		printf("not ok %u %s\n", t_state.num, name);
		t_state.fail++;
	} else if (t_state.skip_reason[0]) {
		printf("ok %u %s # SKIP %s\n", t_state.num, name,
		       t_state.skip_reason);
		t_state.skip++;
	} else {
		printf("ok %u %s\n", t_state.num, name);
		t_state.pass++;
	}
	fflush(stdout);
}

/* The running case's result line, numbered; the name is a format. */
__printf(1, 2)
static inline void t_case_end(const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	t_case_report(name);
}

/* A case that is one check: its result line. */
__printf(2, 3)
static inline void t_result(bool ok, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	t_case_begin();
	if (!ok)
		t_state.failures++;
	t_case_report(name);
}

/* A plan that does not match the cases reported is one failure more. */
static inline void t_check_plan(void)
{
	if (t_state.num != t_state.plan) {
		diag("planned %u cases, reported %u", t_state.plan,
		     t_state.num);
		t_state.fail++;
	}
}

/*
 * A case of the running document that is a KTAP subtest: its "# Subtest:"
 * line and its own plan of @n cases, four spaces further in; the cases
 * that follow are its own, until t_subtest_end(). Not within a case.
 */
__printf(2, 3)
static inline void t_subtest_begin(unsigned int n, const char *fmt, ...)
{
	struct t_parent *up = &t_state.parent[t_state.depth];
	va_list ap;

	if (t_state.depth == T_MAX_DEPTH) {
		/* its cases count in the deepest open one; its end, nothing */
		diag("subtests nested deeper than %d", T_MAX_DEPTH);
		t_state.fail++;
		t_state.too_deep++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(up->name, sizeof(up->name), fmt, ap);
	va_end(ap);
	up->plan = t_state.plan;
	up->num = t_state.num;
	up->pass = t_state.pass;
	up->fail = t_state.fail;
	up->skip = t_state.skip;
	t_state.depth++;
	t_indent();
	printf("# Subtest: %s\n", up->name);
	t_indent();
	printf("1..%u\n", n);
	t_state.plan = n;
	t_state.num = t_state.pass = t_state.fail = t_state.skip = 0;
	fflush(stdout);
}

/*
 * The subtest's end: its plan checked, and its result as one case of the
 * parent: not ok if a case failed (or the plan did not match), a SKIP if
 * every case skipped, ok otherwise.
 */
static inline void t_subtest_end(void)
{
	struct t_parent *up;
	unsigned int pass, fail, skip;

	if (t_state.too_deep) {
		t_state.too_deep--;
		return;
	}
	if (!t_state.depth) {
		diag("%s() without a subtest", __func__);
		t_state.fail++;
		return;
	}
	t_check_plan();
	pass = t_state.pass;
	fail = t_state.fail;
	skip = t_state.skip;
	up = &t_state.parent[--t_state.depth];
	t_state.plan = up->plan;
	t_state.num = up->num;
	t_state.pass = up->pass;
	t_state.fail = up->fail;
	t_state.skip = up->skip;
	t_case_begin();
	if (fail)
		t_state.failures++;
	else if (!pass)
		t_skip("every case of the subtest skipped (%u)", skip);
	t_case_report(up->name);
}

/* The totals line; the program's exit status (0: every case passed). */
static inline int t_finish(void)
{
	t_state.too_deep = 0;
	while (t_state.depth) {
		/* the subtest fails, and so its line in the parent */
		diag("a subtest was not ended");
		t_state.fail++;
		t_subtest_end();
	}
	t_check_plan();
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       t_state.pass, t_state.fail, t_state.skip);
	fflush(stdout);
	return t_state.fail ? 1 : 0;
}

/* A fixture could not be built: the case fails, it does not skip. */
static inline void setup_error(const char *what, const char *name, int err)
{
	t_fail("setup: %s \"%s\": %s", what, name, errno_name(err));
}

/*
 * A fixture step that must hold: @ok, or setup_error() with errno (read
 * here, after @ok was computed) and false, for the case to end.
 */
static inline bool t_setup(bool ok, const char *what, const char *name)
{
	if (!ok)
		setup_error(what, name, errno);
	return ok;
}

/* ----------------------------------------------------------------------
 * A child whose checks count through its exit status: t_fork() flushes
 * stdout (so that nothing buffered prints twice) and forks; the child
 * starts its own count and ends with t_child_exit(); the parent waits with
 * t_expect_child(), which counts the child's failure as one.
 */

/* The child's pid, 0 in the child, or -1 (a failed check). */
static inline pid_t t_fork(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		setup_error("fork", "", errno);
	else if (pid == 0)
		t_state.failures = 0;
	return pid;
}

static inline void t_child_exit(void)
{
	fflush(stdout);
	_exit(t_state.failures ? 1 : 0);
}

/* @pid's wait status, or -1 (a failed check) */
static inline int t_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		setup_error("waitpid", "", errno);
		return -1;
	}
	return status;
}

/* The child's checks print their own diagnostics; its exit status counts. */
static inline void t_expect_child(pid_t pid)
{
	int status = pid < 0 ? -1 : t_wait(pid);

	if (status < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return;
	if (WIFEXITED(status))
		t_fail("child failed (exit status %d)", WEXITSTATUS(status));
	else
		t_fail("child killed by signal %d", WTERMSIG(status));
}

/* ----------------------------------------------------------------------
 * Checks: each prints file:line and what differed, and counts a failure
 */

static inline bool expect_result(const char *file, int line,
				 const char *expr, long ret, int err, int want)
{
	if ((!want && ret == 0) || (want && ret == -1 && err == want))
		return true;
	if (ret == -1)
		t_fail("%s:%d: %s: expected %s%s, got -1/%s", file, line, expr,
		       want ? "-1/" : "", errno_name(want), errno_name(err));
	else
		t_fail("%s:%d: %s: expected %s%s, got %ld", file, line, expr,
		       want ? "-1/" : "", errno_name(want), ret);
	return false;
}

static inline bool expect_eq(const char *file, int line, const char *expr,
			     long long got, long long want)
{
	if (got == want)
		return true;
	t_fail("%s:%d: %s: expected %lld, got %lld", file, line, expr, want,
	       got);
	return false;
}

/* the full st_mode of @path (not followed) */
static inline bool expect_mode(const char *file, int line, int dfd,
			       const char *path, unsigned int want)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW))
		t_fail("%s:%d: lstat \"%s\": expected mode 0%o, got %s", file,
		       line, path, want, errno_name(errno));
	else if (st.st_mode != want)
		t_fail("%s:%d: lstat \"%s\": expected mode 0%o, got 0%o",
		       file, line, path, want, (unsigned int)st.st_mode);
	else
		return true;
	return false;
}

static inline bool expect_fd_mode(const char *file, int line, int fd,
				  unsigned int want)
{
	struct stat st;

	if (fstat(fd, &st))
		t_fail("%s:%d: fstat: %s", file, line, errno_name(errno));
	else if (st.st_mode != want)
		t_fail("%s:%d: fstat: expected mode 0%o, got 0%o", file, line,
		       want, (unsigned int)st.st_mode);
	else
		return true;
	return false;
}

static inline bool expect_absent(const char *file, int line, int dfd,
				 const char *path)
{
	struct stat st;

	if (!fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW))
		t_fail("%s:%d: lstat \"%s\": expected ENOENT, it exists (mode 0%o)",
		       file, line, path, (unsigned int)st.st_mode);
	else if (errno != ENOENT)
		t_fail("%s:%d: lstat \"%s\": expected ENOENT, got %s", file,
		       line, path, errno_name(errno));
	else
		return true;
	return false;
}

/*
 * Each is true if the check held. errno is sampled right after the call:
 * argument order is unspecified.
 */
#define EXPECT_RESULT(call, want)					\
	({								\
		long _ret;						\
		int _err;						\
									\
		errno = 0;						\
		_ret = (call);						\
		_err = errno;						\
		expect_result(__FILE__, __LINE__, #call, _ret, _err, want); \
	})
#define EXPECT_OK(call)		EXPECT_RESULT(call, 0)
#define EXPECT_ERR(call, err)	EXPECT_RESULT(call, err)
#define EXPECT_EQ(got, want) \
	expect_eq(__FILE__, __LINE__, #got, got, want)
#define EXPECT_MODE(dfd, path, want) \
	expect_mode(__FILE__, __LINE__, dfd, path, want)
#define EXPECT_FD_MODE(fd, want) \
	expect_fd_mode(__FILE__, __LINE__, fd, want)
#define EXPECT_ABSENT(dfd, path) \
	expect_absent(__FILE__, __LINE__, dfd, path)

#endif /* F2_HARNESS_H */
