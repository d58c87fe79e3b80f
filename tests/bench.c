// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark, not a test: guest nanoseconds per call of one operation.
 * Under QEMU with -icount shift=0,sleep=off a guest nanosecond is one
 * instruction, so results are repeatable and comparable within a boot.
 *
 *   bench getpid|fchmodat2|fchmodat|emulation|fchmodat2_enoent|fchmodat_enoent|forkexit
 *         [iterations] [dir]
 *
 * prints "<operation> <ns per call>" and exits 0, or 1 when a call fails.
 *
 *   bench run PROGRAM [ARG...]
 *
 * runs PROGRAM once (a workload: a tar extraction, chmod -R) and prints
 * "run <ns>" from fork to its exit, or exits 1 when it fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char file[4096];

static int op_getpid(unsigned long i)
{
	(void)i;
	return syscall(SYS_getpid) > 0 ? 0 : -1;
}

static int op_fchmodat2(unsigned long i)
{
	return syscall(__NR_fchmodat2, AT_FDCWD, file, (i & 1) ? 0600 : 0644,
		       AT_SYMLINK_NOFOLLOW);
}

static int op_fchmodat(unsigned long i)
{
	return syscall(SYS_fchmodat, AT_FDCWD, file, (i & 1) ? 0600 : 0644);
}

/* An empty path fails in getname() either way: what is left is dispatch. */
static int op_empty2(unsigned long i)
{
	return syscall(__NR_fchmodat2, AT_FDCWD, "", (i & 1) ? 0600 : 0644,
		       0) == -1 && errno == ENOENT ? 0 : -1;
}

static int op_empty(unsigned long i)
{
	return syscall(SYS_fchmodat, AT_FDCWD, "", (i & 1) ? 0600 : 0644) ==
		-1 && errno == ENOENT ? 0 : -1;
}

/*
 * What glibc 2.32 to 2.38 do for fchmodat(..., AT_SYMLINK_NOFOLLOW), as
 * users have it without the module: O_PATH open, fstatat, chmod through
 * /proc, close. Raw system calls, so the libc this is built with does not
 * matter.
 */
static int op_emulation(unsigned long i)
{
	char proc[32];
	struct stat st;
	int fd, ret;

	fd = syscall(SYS_openat, AT_FDCWD, file,
		     O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
	if (ret == 0 && S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP;
		ret = -1;
	}
	if (ret == 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		ret = syscall(SYS_fchmodat, AT_FDCWD, proc,
			      (i & 1) ? 0600 : 0644);
	}
	syscall(SYS_close, fd);
	return ret;
}

/*
 * A process's life, at its shortest: fork, the child exits at once, the
 * parent reaps it (what a module that probes task exit would slow down).
 */
static int op_forkexit(unsigned long i)
{
	int status;
	pid_t pid = fork();

	(void)i;
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

static const struct {
	const char *name;
	int (*op)(unsigned long i);
} ops[] = {
	{ "getpid", op_getpid },
	{ "fchmodat2", op_fchmodat2 },
	{ "fchmodat", op_fchmodat },
	{ "emulation", op_emulation },
	{ "fchmodat2_enoent", op_empty2 },
	{ "fchmodat_enoent", op_empty },
	{ "forkexit", op_forkexit },
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int run_program(char **argv)
{
	long long t0, t1;
	pid_t pid;
	int st;

	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	t1 = now_ns();
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench: %s failed (wait status %#x)\n", argv[0],
			st);
		return 1;
	}
	printf("run %lld\n", t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long i, n = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000;
	const char *dir = argc > 3 ? argv[3] : "/tmp";
	long long t0, t1;
	size_t k;
	int fd;

	if (argc > 2 && !strcmp(argv[1], "run"))
		return run_program(argv + 2);
	if (argc < 2 || n == 0) {
		fprintf(stderr, "usage: %s getpid|fchmodat2|fchmodat|emulation|fchmodat2_enoent|fchmodat_enoent|forkexit [iterations] [dir]\n       %s run PROGRAM [ARG...]\n",
			argv[0], argv[0]);
		return 2;
	}
	for (k = 0; k < ARRAY_SIZE(ops); k++)
		if (!strcmp(argv[1], ops[k].name))
			break;
	if (k == ARRAY_SIZE(ops)) {
		fprintf(stderr, "%s: unknown operation %s\n", argv[0], argv[1]);
		return 2;
	}
	snprintf(file, sizeof(file), "%s/bench.%d", dir, (int)getpid());
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	close(fd);

	/* warm up caches and the dentry of the file */
	for (i = 0; i < n / 10 + 1; i++)
		if (ops[k].op(i)) {
			fprintf(stderr, "%s: %s failed: %s\n", argv[0],
				ops[k].name, strerror(errno));
			unlink(file);
			return 1;
		}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		ops[k].op(i);
	t1 = now_ns();
	unlink(file);
	printf("%s %.1f\n", ops[k].name, (double)(t1 - t0) / n);
	return 0;
}
