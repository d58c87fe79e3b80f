/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of fchmodat2_test share: the raw call, the run's
 * environment, the fixture every case starts from, and the case lists that
 * main.c runs in order (see main.c for what the program checks).
 */
#ifndef FCHMODAT2_TEST_H
#define FCHMODAT2_TEST_H

#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "../../userspace/fchmodat2.h"	/* the number on every ABI, AT_ flags */
/* the harness's state is main.c's */
#ifndef FCHMODAT2_TEST_MAIN
#define T_STATE_EXTERN
#endif
#include "../harness.h"

/* <linux/fs.h> clashes with <sys/mount.h> on some glibc versions */
#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS		_IOR('f', 1, long)
#define FS_IOC_SETFLAGS		_IOW('f', 2, long)
#endif
#ifndef FS_IMMUTABLE_FL
#define FS_IMMUTABLE_FL		0x00000010
#endif
#ifndef FS_APPEND_FL
#define FS_APPEND_FL		0x00000020
#endif

/* the kernel's S_IALLUGO: the bits that chmod sets, the rest it keeps */
#define MODE_BITS	07777

#define VALID_FLAGS	(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)
#define NOFOLLOW	AT_SYMLINK_NOFOLLOW
#define EMPTY		AT_EMPTY_PATH
#define DIRFD		(O_RDONLY | O_DIRECTORY)
#define NOBODY		65534	/* no /etc/passwd in the guest: numeric ids */
#define BAD_PTR		((const char *)1)
#define PAST		978307200	/* 2001-01-01T00:00:00Z */

static inline long sys_fchmodat2(int dfd, const char *path,
				 unsigned long mode, unsigned long flags)
{
	return syscall(__NR_fchmodat2, dfd, path, mode, flags);
}

/* the run's environment (main.c) */
struct env {
	bool root;		/* euid 0: root-only cases can run */
	bool private_ns;	/* our own mount namespace: mounts are safe */
	char ns_error[80];	/* why there is no private namespace */
	bool tmpfs;		/* work is a tmpfs we mounted */
	char work[1024];	/* the temporary directory of this run */
	int workfd;
	int cwdfd;
};
extern struct env env;

/* ----------------------------------------------------------------------
 * The fixture (fixture.c): every case runs in a fresh directory holding
 * a tree of every file type, each node with a distinct mode
 */

#define TREE_NODES	12

struct fixture {
	int dfd;			/* the case's directory */
	char dir[1100];			/* its absolute path */
	unsigned int mode[TREE_NODES];	/* st_mode of each node before */
	int aux_fd;			/* for the case; closed at teardown */
	bool ro_mounted;		/* "ro" is a mount point */
	unsigned int ro_link_mode;	/* st_mode of "ro/link" */
};

int fixture_setup(struct fixture *f, unsigned int num);
void fixture_teardown(struct fixture *f, unsigned int num);
unsigned int tree_mode(const struct fixture *f, const char *name);
int make_file(int dfd, const char *name, unsigned int perm);
int make_dir(int dfd, const char *name, unsigned int perm);
int make_link(int dfd, const char *name, const char *target);
unsigned int lmode(int dfd, const char *path);
int change_inode_flags(int dfd, const char *name, int set, int clear);
void remove_tree(int parent, const char *name);
void settle(void);

/* every node keeps its mode but @changed, which gets chmod's @mode */
void expect_tree(const char *file, int line, struct fixture *f,
		 const char *changed, unsigned long mode);
/* @want: 0 for "a == b", 1 for "a > b" */
void expect_ts(const char *file, int line, const char *expr,
	       const struct timespec *a, const struct timespec *b, int want);

#define EXPECT_TREE(f, changed, mode) \
	expect_tree(__FILE__, __LINE__, f, changed, mode)
#define EXPECT_TS_EQ(a, b) \
	expect_ts(__FILE__, __LINE__, #a " == " #b, &(a), &(b), 0)
#define EXPECT_TS_LATER(a, b) \
	expect_ts(__FILE__, __LINE__, #a " > " #b, &(a), &(b), 1)

/* ----------------------------------------------------------------------
 * The cases, in the order main.c runs them
 */

/* one call, then the whole fixture is checked (calls.c) */
struct call_case {
	const char *name;
	const char *at;		/* open this for dfd; NULL: the case dir */
	int at_flags;		/* open flags for @at */
	const char *path;
	unsigned int mode;
	unsigned int flags;
	int err;		/* expected errno; 0: success */
	const char *changes;	/* the node whose mode changes, if any */
};

extern const struct call_case call_cases[];
extern const size_t n_call_cases;
void run_call_case(struct fixture *f, const struct call_case *c);

/* a function named by the property it checks */
struct fn_case {
	const char *name;
	void (*fn)(struct fixture *f);
};

#define FN_CASE(fn)	{ #fn, fn }

extern const struct fn_case path_cases[];	/* paths.c */
extern const size_t n_path_cases;
extern const struct fn_case inode_cases[];	/* inode.c */
extern const size_t n_inode_cases;
extern const struct fn_case readonly_cases[];	/* readonly.c */
extern const size_t n_readonly_cases;
extern const struct fn_case unpriv_cases[];	/* unpriv.c */
extern const size_t n_unpriv_cases;

#endif /* FCHMODAT2_TEST_H */
