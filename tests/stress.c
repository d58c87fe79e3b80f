// SPDX-License-Identifier: GPL-2.0
/*
 * System calls from four threads, on parallel CPUs, while the kernel code
 * they run through is patched. Runs in the VM guest as root; TAP output.
 *
 *   stress cycles N MODULE.ko DIR  N finit_module/delete_module cycles
 *   stress toggle N DIR            N enable/disable cycles of the
 *                                  raw_syscalls:sys_enter trace event (no
 *                                  module: does the emulator run patched
 *                                  code correctly on parallel vCPUs?)
 *   stress calls DIR               the callers alone, until SIGTERM (the
 *                                  load under unload_test's cases)
 *   stress loaded SECONDS DIR      the callers for SECONDS with the module
 *                                  loaded throughout (the script loads it):
 *                                  only mainline's answers, and calls served
 *                                  through every ABI
 *
 * Each caller, in a loop: fchmodat2 on its own file (the mode it set must
 * be the mode stat() sees), on its own symlink with AT_SYMLINK_NOFOLLOW
 * (EOPNOTSUPP, the symlink unchanged), with an unknown flag (EINVAL), at
 * 452 | __X32_SYSCALL_BIT (ENOSYS: x32 is off unless booted with
 * syscall.x32=y; not from AArch32, where it is SIGILL), through int $0x80
 * on x86_64 (the i386 entry); fchmodat
 * (268), getppid and getpid. With the module loaded every answer must be
 * mainline's; without it, fchmodat2 may also give ENOSYS, nothing else.
 * ENOSYS is accepted only where the module comes and goes during the run
 * (cycles, calls); "loaded" takes none, and counts the calls served per
 * ABI (64-bit, and int $0x80 on x86_64; on arm64 AArch64, and AArch32 in
 * a second run of this program built for it): each must be served.
 *
 * Every step has a deadline (SIGALRM ends the program with a "not ok"), and
 * progress is printed so that a guest that stops printing is noticed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */
#include "harness.h"

#define NCALLERS 4
#define STEP_DEADLINE 120	/* seconds for one load, unload or toggle */
#define X32_BIT 0x40000000L
/*
 * the calls a caller checks per round (not its stat()s nor getpid() for
 * comparison): int $0x80 on x86_64 only, the x32 number not on AArch32
 */
#if defined(__x86_64__)
#define CALLS_PER_ROUND 8
#elif defined(__arm__)
#define CALLS_PER_ROUND 6
#else
#define CALLS_PER_ROUND 7
#endif

static atomic_int stop;
static atomic_long served, enosys, bad, calls;
/* "loaded": ENOSYS from fchmodat2 is a wrong answer */
static int strict;
/*
 * calls served per ABI: the native one (built for AArch32, arm64's compat
 * ABI: stress32 in the arm64 guests), i386's int $0x80
 */
enum { ABI_NATIVE, ABI_INT80, NR_ABIS };
static const char *const abi_names[NR_ABIS] = {
#ifdef __arm__
	"AArch32/compat",
#else
	"the native ABI",
#endif
	"int $0x80 (i386)",
};
static atomic_long served_abi[NR_ABIS];
static pid_t parent;
static char dir[256];

static void on_alarm(int sig)
{
	static const char msg[] =
		"not ok - a step missed its deadline (the kernel did not answer)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

struct caller {
	int id;
	char file[300], link[300];
	mode_t mode;		/* what stat() must show */
};

/* A path below 4 GiB, for int $0x80 (a static, non-PIE binary's .bss). */
static char low_path[NCALLERS][300];

static void wrong(struct caller *c, const char *what, long ret, int err)
{
	struct stat st;

	atomic_fetch_add(&bad, 1);
	if (stat(c->file, &st))
		st.st_mode = 0;
	printf("# caller %d: %s gave %ld (%s); file mode %o, expected %o\n",
	       c->id, what, ret, ret < 0 ? errno_name(err) : "-",
	       (unsigned int)st.st_mode, (unsigned int)(S_IFREG | c->mode));
	fflush(stdout);
}

/*
 * 0 (served: the new mode), or ENOSYS (no module: the mode unchanged),
 * except in "loaded" mode.
 */
static void check_set(struct caller *c, const char *what, int abi, long ret,
		      int err, mode_t mode)
{
	struct stat st;

	if (ret == 0) {
		atomic_fetch_add(&served, 1);
		atomic_fetch_add(&served_abi[abi], 1);
		c->mode = mode;
	} else if (ret == -1 && err == ENOSYS && !strict) {
		atomic_fetch_add(&enosys, 1);
	} else {
		wrong(c, what, ret, err);
		return;
	}
	if (stat(c->file, &st) || st.st_mode != (S_IFREG | c->mode))
		wrong(c, what, ret, err);
}

/* Mainline's errno, or ENOSYS (not in "loaded" mode). */
static void check_err(struct caller *c, const char *what, long ret, int err,
		      int want)
{
	if (ret != -1 || (err != want && (err != ENOSYS || strict)))
		wrong(c, what, ret, err);
}

#ifdef __x86_64__
static long int80(long nr, long a, long b, long c, long d)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
		     : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
		       "r15");
	return ret;
}
#endif

static void *caller(void *arg)
{
	struct caller *c = arg;
	struct stat st;
	long n, r;
	int e;

	for (n = 0; !atomic_load(&stop); n++) {
		mode_t m = (n & 1) ? 0640 : 0604;

		errno = 0;
		r = syscall(__NR_fchmodat2, AT_FDCWD, c->file, m, 0);
		check_set(c, "fchmodat2(file)", ABI_NATIVE, r, errno, m);

		errno = 0;
		r = syscall(__NR_fchmodat2, AT_FDCWD, c->link, 0600,
			    AT_SYMLINK_NOFOLLOW);
		e = errno;
		check_err(c, "fchmodat2(symlink, AT_SYMLINK_NOFOLLOW)", r, e,
			  EOPNOTSUPP);
		if (lstat(c->link, &st) || st.st_mode != (S_IFLNK | 0777))
			wrong(c, "the symlink's mode after fchmodat2", r, e);

		errno = 0;
		r = syscall(__NR_fchmodat2, AT_FDCWD, c->file, 0600, 0x10000);
		check_err(c, "fchmodat2(file, unknown flag)", r, errno, EINVAL);

#ifndef __arm__
		/*
		 * (AArch32: a number past arm's private range, 0x0f07ff,
		 * is SIGILL on mainline, as "bad compat syscall")
		 */
		errno = 0;
		r = syscall(__NR_fchmodat2 | X32_BIT, AT_FDCWD, c->file, 0600,
			    0);
		check_err(c, "452 | __X32_SYSCALL_BIT", r, errno, ENOSYS);
#endif

		m = (n & 1) ? 0660 : 0606;
		errno = 0;
		r = syscall(SYS_fchmodat, AT_FDCWD, c->file, m, 0);
		if (r)
			wrong(c, "fchmodat (268)", r, errno);
		else
			c->mode = m;

#ifdef __x86_64__
		if ((uintptr_t)low_path[c->id] < (1UL << 32)) {
			m = (n & 1) ? 0644 : 0624;
			r = int80(__NR_fchmodat2, AT_FDCWD,
				  (long)low_path[c->id], m, 0);
			check_set(c, "int $0x80 fchmodat2", ABI_INT80,
				  r < 0 ? -1 : r, r < 0 ? (int)-r : 0, m);
		}
#endif
		if (getppid() != parent)
			wrong(c, "getppid", getppid(), 0);
		if (syscall(SYS_getpid) != getpid())
			wrong(c, "getpid", syscall(SYS_getpid), errno);
		atomic_fetch_add(&calls, CALLS_PER_ROUND);
	}
	return NULL;
}

static struct caller callers[NCALLERS];
static pthread_t threads[NCALLERS];

static int start_callers(void)
{
	int i;

	parent = getppid();
	for (i = 0; i < NCALLERS; i++) {
		struct caller *c = &callers[i];
		int fd;

		c->id = i;
		c->mode = 0600;
		snprintf(c->file, sizeof(c->file), "%s/stress.%d.%d", dir,
			 (int)getpid(), i);
		snprintf(c->link, sizeof(c->link), "%s.l", c->file);
		strcpy(low_path[i], c->file);
		unlink(c->link);
		fd = open(c->file, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		if (fd < 0 || fchmod(fd, 0600) || symlink(c->file, c->link)) {
			perror(c->file);
			return -1;
		}
		close(fd);
		pthread_create(&threads[i], NULL, caller, c);
	}
	return 0;
}

static void stop_callers(void)
{
	int i;

	atomic_store(&stop, 1);
	for (i = 0; i < NCALLERS; i++) {
		pthread_join(threads[i], NULL);
		unlink(callers[i].file);
		unlink(callers[i].link);
	}
}

static void report(const char *during, int need_served)
{
	char name[256];
	int abi;

	printf("# %ld calls: fchmodat2 served %ld (%s %ld", atomic_load(&calls),
	       atomic_load(&served), abi_names[ABI_NATIVE],
	       atomic_load(&served_abi[ABI_NATIVE]));
#ifdef __x86_64__
	printf(", %s %ld", abi_names[ABI_INT80],
	       atomic_load(&served_abi[ABI_INT80]));
#endif
	printf("), ENOSYS %ld; wrong answers %ld\n", atomic_load(&enosys),
	       atomic_load(&bad));
	snprintf(name, sizeof(name),
		 "%d callers on parallel CPUs got mainline's answer%s, %s",
		 NCALLERS, strict ? " (never ENOSYS)" : " or ENOSYS", during);
	t_result(atomic_load(&bad) == 0, "%s", name);
	if (strict) {
		for (abi = 0; abi < NR_ABIS; abi++) {
#ifndef __x86_64__
			if (abi == ABI_INT80)
				continue;
#endif
			snprintf(name, sizeof(name),
				 "fchmodat2 calls served through %s: %ld",
				 abi_names[abi],
				 atomic_load(&served_abi[abi]));
			t_result(atomic_load(&served_abi[abi]) > 0, "%s", name);
		}
	}
	if (need_served) {
		t_result(atomic_load(&served) > 0 && atomic_load(&enosys) > 0,
			 "calls were both served (module loaded) and ENOSYS (unloaded) during the cycles");
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The end of a run: DONE of N steps, and what the callers got. */
static int finish(long done, long n, double t0, const char *steps,
		  const char *during, int need_served)
{
	char name[256];

	alarm(STEP_DEADLINE);	/* joining the callers is a step too */
	stop_callers();
	alarm(0);
	snprintf(name, sizeof(name), "%ld of %ld %s (%.0f s)", done, n, steps,
		 now() - t0);
	t_result(done == n, "%s", name);
	report(during, need_served);
	return t_finish();
}

/*
 * A line every EVERY steps, and at least every 30 s: the console must not
 * go quiet (run.sh stops a guest that prints nothing for 240 s).
 */
static void progress(long done, long every, const char *what, double t0)
{
	static double last;

	if (done % every == 0 || now() - last >= 30) {
		last = now();
		printf("# %ld %s, %.0f s\n", done, what, last - t0);
		fflush(stdout);
	}
}

static int run_cycles(long n, const char *ko)
{
	long i, done = 0, in_use = 0;
	int err;
	double t0 = now(), t, t_load = 0, t_unload = 0, max_load = 0;
	double max_unload = 0;
	int fd;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(ko);
		return 1;
	}
	if (start_callers())
		return 1;
	for (i = 0; i < n; i++) {
		alarm(STEP_DEADLINE);
		t = now();
		if (syscall(SYS_finit_module, fd, "", 0)) {
			printf("# cycle %ld: finit_module: %s\n", i + 1,
			       errno_name(errno));
			break;
		}
		t_load += now() - t;
		if (now() - t > max_load)
			max_load = now() - t;
		/* let the callers in: 0 to 2 ms loaded */
		usleep(random() % 2000);
		t = now();
		/*
		 * A call in flight holds the module (EWOULDBLOCK, "in use"):
		 * try again, as an administrator would, for up to 10 s.
		 */
		while ((err = syscall(SYS_delete_module, "fchmodat2",
				      O_NONBLOCK) ? errno : 0) == EWOULDBLOCK &&
		       now() - t < 10) {
			in_use++;
			usleep(100 + random() % 500);
		}
		if (err) {
			printf("# cycle %ld: delete_module: %s\n", i + 1,
			       errno_name(err));
			break;
		}
		errno = 0;
		if (syscall(__NR_fchmodat2, AT_FDCWD, dir, 0755, 0) != -1 ||
		    errno != ENOSYS) {
			printf("# cycle %ld: 452 after the unload: %s\n", i + 1,
			       errno_name(errno));
			break;
		}
		t_unload += now() - t;
		if (now() - t > max_unload)
			max_unload = now() - t;
		done++;
		usleep(random() % 1000);
		progress(done, 20, "cycles", t0);
	}
	if (done)
		printf("# per cycle: load %.1f ms (longest %.0f), unload %.1f ms (longest %.0f); delete_module refused %ld times, a call in flight\n",
		       1e3 * t_load / done, 1e3 * max_load,
		       1e3 * t_unload / done, 1e3 * max_unload, in_use);
	return finish(done, n, t0,
		      "load/unload cycles, each unload leaving 452 ENOSYS",
		      "loading and unloading", 1);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(s);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

static int run_toggle(long n)
{
	static const char *const ev[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/enable",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/enable",
	};
	const char *path = NULL;
	long i, done = 0;
	double t0 = now();
	unsigned int k;

	for (k = 0; k < 2 && !path; k++)
		if (!access(ev[k], W_OK))
			path = ev[k];
	if (!path) {
		t_result(0, "the raw_syscalls:sys_enter trace event is there (tracefs mounted)");
		return 1;
	}
	if (start_callers())
		return 1;
	for (i = 0; i < n; i++) {
		alarm(STEP_DEADLINE);
		if (write_str(path, "1") || write_str(path, "0")) {
			printf("# toggle %ld: %s\n", i + 1, errno_name(errno));
			break;
		}
		done++;
		progress(done, 100, "toggles", t0);
	}
	return finish(done, n, t0,
		      "enable/disable cycles of the sys_enter tracepoint under system-call load",
		      "while the tracepoint's static branch was patched", 0);
}

/* The callers for @secs seconds, the module loaded throughout. */
static int run_loaded(long secs)
{
	double t0 = now();

	strict = 1;
	if (start_callers())
		return 1;
	while (now() - t0 < secs) {
		sleep(1);
		progress((long)(now() - t0), 10, "seconds", t0);
	}
	alarm(STEP_DEADLINE);
	stop_callers();
	alarm(0);
	report("with the module loaded throughout", 0);
	return t_finish();
}

static int calls_until_term(void)
{
	sigset_t set;
	int sig;

	/* main() blocked SIGTERM before anything: sigwait() gets it */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	if (start_callers())
		return 1;
	printf("# callers running\n");
	fflush(stdout);
	sigwait(&set, &sig);
	stop_callers();
	report("while tasks parked in the module were unloaded", 0);
	return t_finish();
}

int main(int argc, char **argv)
{
	signal(SIGALRM, on_alarm);
	srandom(getpid());
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "cycles")) {
		t_plan(3);
		snprintf(dir, sizeof(dir), "%s", argv[4]);
		return run_cycles(atol(argv[2]), argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "toggle")) {
		t_plan(2);
		snprintf(dir, sizeof(dir), "%s", argv[3]);
		return run_toggle(atol(argv[2]));
	}
	if (argc == 4 && !strcmp(argv[1], "loaded")) {
#ifdef __x86_64__
		t_plan(3);
#else
		t_plan(2);
#endif
		snprintf(dir, sizeof(dir), "%s", argv[3]);
		return run_loaded(atol(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "calls")) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		t_plan(1);
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		return calls_until_term();
	}
	fprintf(stderr,
		"usage: %s cycles N MODULE.ko DIR | toggle N DIR | calls DIR | loaded SECONDS DIR\n",
		argv[0]);
	return 2;
}
