/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the subsystem test programs share besides the test library
 * (tests/harness.h: TAP output, cases, checks, skips): the raw fchmodat2
 * call, their fixtures and work directories, a case list runner.
 *
 * Each program is built twice, static: 64-bit and -m32. Every case
 * compares errno and the full st_mode, never only the return value.
 */
#ifndef SUBSYS_H
#define SUBSYS_H

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
#include "../harness.h"

#include "../../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

#define NOFOLLOW	AT_SYMLINK_NOFOLLOW
#define NOBODY		65534

static inline long sys_fchmodat2(int dfd, const char *path, unsigned int mode,
				 unsigned int flags)
{
	return syscall(__NR_fchmodat2, dfd, path, mode, flags);
}

/* Run one case: its name states the property; a skip says why. */
static inline void subsys_case(const char *name, void (*fn)(void))
{
	t_case_begin();
	fn();
	t_case_end("%s", name);
}

static inline int make_file(int dfd, const char *name, unsigned int mode)
{
	int fd;

	unlinkat(dfd, name, 0);
	fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0 || fchmod(fd, mode)) {
		setup_error("create", name, errno);
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
		setup_error("symlink", name, errno);
		return -1;
	}
	return 0;
}

/* A new empty directory below @parent for one program's run; its fd. */
static inline int subsys_workdir(const char *parent, const char *tag,
				 char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/subsys-%s.XXXXXX", parent ? parent : "/tmp",
		 tag);
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
struct subsys_case {
	const char *name;
	void (*fn)(void);
};

#define CASE(fn) { #fn, fn }

/*
 * Run @cases in order, or only the one named @only (if not NULL). Without
 * a work directory (@wfd < 0) each case fails: none can be tried.
 */
static inline void subsys_run_cases(const struct subsys_case *cases,
				    unsigned int n, const char *only, int wfd)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (only && strcmp(cases[i].name, only))
			continue;
		if (wfd < 0) {
			t_result(false, "%s", cases[i].name);
			continue;
		}
		subsys_case(cases[i].name, cases[i].fn);
	}
}

/* The -d DIR option, the only one most programs take: DIR, or NULL. */
static inline const char *subsys_dir_option(int argc, char **argv)
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
 * 0, the check for root (exit 1 otherwise), and subsys_workdir()'s directory
 * below DIR for @tag: its fd, or -1.
 */
static inline int subsys_root_begin(int argc, char **argv, unsigned int planned,
				    const char *tag, char *work, size_t size)
{
	const char *dir = subsys_dir_option(argc, argv);

	t_plan(planned);
	umask(0);
	if (geteuid() != 0) {
		diag("must run as root");
		exit(1);
	}
	return subsys_workdir(dir, tag, work, size);
}

/*
 * Remove subsys_workdir()'s directory @work (open as @wfd, if >= 0) and what
 * the cases left in it: @files, then @dirs (NULL-terminated lists).
 */
static inline void subsys_remove_workdir(int wfd, const char *work,
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
static inline int subsys_attrib_events(int in, const char *name)
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
static inline int subsys_watch(const char *work, const char *name, int *in)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", work, name);
	*in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (*in < 0 || inotify_add_watch(*in, path, IN_ATTRIB) < 0) {
		setup_error("inotify", path, errno);
		return -1;
	}
	return 0;
}

#endif /* SUBSYS_H */
