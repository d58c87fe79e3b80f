// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libfchmodat2-preload.so: LD_PRELOAD it so that a libc older than glibc
 * 2.39 (Debian 12's 2.36, say) answers fchmodat() with flags, and lchmod(),
 * the way glibc 2.39 does: system call 452 when the kernel (or the
 * fchmodat2 module) has it, and the libc's own code, exactly as without
 * the shim, when 452 is ENOSYS.
 *
 * glibc's lchmod() calls its internal fchmodat, not the exported one, so
 * both are overridden. fchmodat() without flags is left alone: every
 * kernel does that.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "fchmodat2.h"

#define F2_EXPORT	__attribute__((visibility("default")))

typedef int (*f2_fchmodat_fn)(int, const char *, mode_t, int);
typedef int (*f2_lchmod_fn)(const char *, mode_t);

/*
 * The libc's functions, looked up on first use: a constructor could run
 * after another library's constructor that already calls them. Racing
 * threads store the same pointer.
 */
static void *f2_next(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

static void *f2_real_fchmodat;
static void *f2_real_lchmod;

/* 0 or -1 with errno when 452 answered; -2 when it is ENOSYS */
static int f2_try_syscall(int dfd, const char *path, mode_t mode, int flags)
{
	int saved = errno;
	long ret;

	ret = syscall(__NR_fchmodat2, dfd, path, mode, flags);
	if (ret == -1 && errno == ENOSYS) {
		errno = saved;
		return -2;
	}
	return ret;
}

F2_EXPORT int fchmodat(int dfd, const char *path, mode_t mode, int flags)
{
	f2_fchmodat_fn real;
	int ret;

	if (flags) {
		ret = f2_try_syscall(dfd, path, mode, flags);
		if (ret != -2)
			return ret;
	}
	real = (f2_fchmodat_fn)f2_next(&f2_real_fchmodat, "fchmodat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(dfd, path, mode, flags);
}

F2_EXPORT int lchmod(const char *path, mode_t mode)
{
	f2_lchmod_fn real;
	int ret;

	ret = f2_try_syscall(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW);
	if (ret != -2)
		return ret;
	real = (f2_lchmod_fn)f2_next(&f2_real_lchmod, "lchmod");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, mode);
}
