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
 *	return t_finish();			# Totals; exit status
 *
 * A case fails if any of its checks failed, skips only if none did and it
 * gave a reason. t_finish() counts a plan that does not match the cases
 * run as a failure: a program that stops early or runs a case twice does
 * not pass.
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

struct t_state {
	unsigned int plan;	/* cases announced by t_plan() */
	unsigned int num;	/* cases reported so far */
	unsigned int pass, fail, skip;
	int failures;		/* failed checks in the running case */
	char skip_reason[160];	/* why the running case skipped */
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

static inline void t_vdiag(const char *fmt, va_list ap)
{
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

/* The totals line; the program's exit status (0: every case passed). */
static inline int t_finish(void)
{
	if (t_state.num != t_state.plan) {
		diag("planned %u cases, reported %u", t_state.plan,
		     t_state.num);
		t_state.fail++;
	}
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

static inline void expect_result(const char *file, int line,
				 const char *expr, long ret, int err, int want)
{
	if ((!want && ret == 0) || (want && ret == -1 && err == want))
		return;
	if (ret == -1)
		t_fail("%s:%d: %s: expected %s%s, got -1/%s", file, line, expr,
		       want ? "-1/" : "", errno_name(want), errno_name(err));
	else
		t_fail("%s:%d: %s: expected %s%s, got %ld", file, line, expr,
		       want ? "-1/" : "", errno_name(want), ret);
}

static inline void expect_eq(const char *file, int line, const char *expr,
			     long long got, long long want)
{
	if (got != want)
		t_fail("%s:%d: %s: expected %lld, got %lld", file, line, expr,
		       want, got);
}

/* the full st_mode of @path (not followed) */
static inline void expect_mode(const char *file, int line, int dfd,
			       const char *path, unsigned int want)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW))
		t_fail("%s:%d: lstat \"%s\": expected mode 0%o, got %s", file,
		       line, path, want, errno_name(errno));
	else if (st.st_mode != want)
		t_fail("%s:%d: lstat \"%s\": expected mode 0%o, got 0%o",
		       file, line, path, want, (unsigned int)st.st_mode);
}

static inline void expect_fd_mode(const char *file, int line, int fd,
				  unsigned int want)
{
	struct stat st;

	if (fstat(fd, &st))
		t_fail("%s:%d: fstat: %s", file, line, errno_name(errno));
	else if (st.st_mode != want)
		t_fail("%s:%d: fstat: expected mode 0%o, got 0%o", file, line,
		       want, (unsigned int)st.st_mode);
}

static inline void expect_absent(const char *file, int line, int dfd,
				 const char *path)
{
	struct stat st;

	if (!fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) || errno != ENOENT)
		t_fail("%s:%d: lstat \"%s\": expected ENOENT, got %s", file,
		       line, path, errno_name(errno));
}

/* errno is sampled right after the call: argument order is unspecified */
#define EXPECT_RESULT(call, want)					\
	do {								\
		long _ret;						\
		int _err;						\
									\
		errno = 0;						\
		_ret = (call);						\
		_err = errno;						\
		expect_result(__FILE__, __LINE__, #call, _ret, _err, want); \
	} while (0)
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
