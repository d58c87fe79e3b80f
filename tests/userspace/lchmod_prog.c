// SPDX-License-Identifier: GPL-2.0
/*
 * lchmod_prog - what a program linked against the system's libc gets from
 * lchmod() and fchmodat() with flags. Built dynamically against Debian
 * 12's glibc 2.36, which emulates them through /proc (and fails without
 * it); LD_PRELOAD=libfchmodat2-preload.so makes them use system call 452.
 *
 * In DIR: file (0644), link -> file, then one line per call:
 *   <call>: <0|errno name>, file <mode>, symlink <mode>: <ok|NOT AS ON LINUX 6.6>
 * "ok" means what glibc 2.39 on Linux 6.6 gives. The exit status is the
 * number of calls that differ from it.
 *
 * Usage: lchmod_prog DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static int dfd = -1;
static unsigned int link_mode;

static const char *errno_name(int err)
{
	static char buf[16];

	switch (err) {
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static unsigned int mode_of(const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	return st.st_mode & 07777;
}

/*
 * One call's line; 1 when it differs from Linux 6.6 with glibc 2.39: the
 * result, and the modes (the file's is @want_file after a success, what
 * it was before the call after an error).
 */
static int show(const char *call, int ret, int err, int want_err,
		unsigned int before, unsigned int want_file)
{
	unsigned int file = mode_of("file"), link = mode_of("link");
	int differs;

	if (want_err ? ret != -1 || err != want_err : ret != 0)
		differs = 1;
	else
		differs = file != (ret ? before : want_file) ||
			  link != link_mode;
	printf("%s: %s, file %04o, symlink %04o: %s\n", call,
	       ret ? errno_name(err) : "0", file, link,
	       differs ? "NOT AS ON LINUX 6.6" : "ok");
	return differs;
}

int main(int argc, char **argv)
{
	unsigned int before;
	int fd, ret, err, differ = 0;

	if (argc != 2) {
		fprintf(stderr, "Usage: lchmod_prog DIR\n");
		return 255;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fchdir(dfd)) {
		perror(argv[1]);
		return 255;
	}
	unlink("link");
	unlink("file");
	fd = open("file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 || fchmod(fd, 0644) || close(fd) ||
	    symlink("file", "link")) {
		perror("setup");
		return 255;
	}
	link_mode = mode_of("link");

	before = mode_of("file");
	errno = 0;
	ret = lchmod("file", 0600);
	err = errno;
	differ += show("lchmod(file, 0600)", ret, err, 0, before, 0600);

	before = mode_of("file");
	errno = 0;
	ret = lchmod("link", 0640);
	err = errno;
	differ += show("lchmod(link, 0640)", ret, err, EOPNOTSUPP, before,
		       before);

	before = mode_of("file");
	errno = 0;
	ret = fchmodat(AT_FDCWD, "file", 0604, AT_SYMLINK_NOFOLLOW);
	err = errno;
	differ += show("fchmodat(file, 0604, AT_SYMLINK_NOFOLLOW)", ret, err,
		       0, before, 0604);

	/* glibc before 2.39 knows no AT_EMPTY_PATH here: EINVAL */
	before = mode_of("file");
	fd = open("file", O_PATH | O_CLOEXEC);
	errno = 0;
	ret = fchmodat(fd, "", 0606, AT_EMPTY_PATH);
	err = errno;
	differ += show("fchmodat(O_PATH fd, \"\", 0606, AT_EMPTY_PATH)", ret,
		       err, 0, before, 0606);
	close(fd);

	unlink("link");
	unlink("file");
	return differ;
}
