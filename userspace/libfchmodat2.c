// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libfchmodat2: fchmodat2(), the raw system call, and fchmodat2_compat(),
 * what glibc >= 2.39's fchmodat() does (sysdeps/unix/sysv/linux/fchmodat.c,
 * commit 65341f7bbea8 "linux: Use fchmodat2 on fchmod for flags different
 * than 0 (BZ 26401)"), so that programs built against an older libc get
 * the same answers as with a new one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "fchmodat2.h"

int fchmodat2(int dfd, const char *path, mode_t mode, int flags)
{
	return syscall(__NR_fchmodat2, dfd, path, mode, flags);
}

/*
 * glibc 2.32 to 2.38's fchmodat(AT_SYMLINK_NOFOLLOW), kept by 2.39 for
 * kernels without fchmodat2: an O_PATH descriptor of the node itself,
 * refused if it is a symlink, and chmod() through /proc, which upgrades
 * the O_PATH descriptor without opening the file (no side effects of
 * open on a FIFO or a device, no lost POSIX locks).
 */
static int fchmodat2_emulate(int dfd, const char *path, mode_t mode,
			     int flags)
{
	char proc[sizeof("/proc/self/fd/") + 3 * sizeof(int)];
	struct stat st;
	int pathfd, ret, err;

	if (flags != AT_SYMLINK_NOFOLLOW) {
		errno = EINVAL;
		return -1;
	}

	pathfd = openat(dfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pathfd < 0)
		return -1;

	/* fstat() does not take O_PATH descriptors before Linux 3.6 */
	if (fstatat(pathfd, "", &st, AT_EMPTY_PATH)) {
		err = errno;
		close(pathfd);
		errno = err;
		return -1;
	}

	/*
	 * Some filesystems change a symlink's mode through /proc and then
	 * fail (before Linux 6.6 and its backports): never try.
	 */
	if (S_ISLNK(st.st_mode)) {
		close(pathfd);
		errno = EOPNOTSUPP;
		return -1;
	}

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	ret = chmod(proc, mode);
	err = errno;
	/* ENOENT: no /proc, and no other way to use an O_PATH descriptor */
	if (ret && err == ENOENT)
		err = EOPNOTSUPP;
	close(pathfd);
	errno = err;
	return ret;
}

int fchmodat2_compat(int dfd, const char *path, mode_t mode, int flags)
{
	int ret;

	/*
	 * Every kernel's fchmodat does this: no need to try 452 first. The
	 * libc call, not a raw one, so that fakeroot and the like see it.
	 */
	if (!flags)
		return fchmodat(dfd, path, mode, 0);

	ret = fchmodat2(dfd, path, mode, flags);
	if (ret == 0 || errno != ENOSYS)
		return ret;
	return fchmodat2_emulate(dfd, path, mode, flags);
}
