/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs share for their TAP output: "# " diagnostics and
 * errno names. Header-only: each program is one file, built static for
 * several ABIs and libcs.
 */
#ifndef F2_TAP_H
#define F2_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* A diagnostic line, flushed so that it stays before a child's output. */
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
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

#endif /* F2_TAP_H */
