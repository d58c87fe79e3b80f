// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading the module while tasks are inside it. Runs in the VM guest as
 * root with fchmodat2.ko loaded; ends with the module unloaded.
 *
 *   unload_test ptrace DIR   a task stopped by ptrace at the entry of 452
 *   unload_test named DIR    the same, rmmod waiting long enough (12 s) to
 *                            name the task in the kernel log (x86_64)
 *   unload_test seccomp DIR  a task whose 452 a seccomp USER_NOTIF
 *                            supervisor holds
 *   unload_test uffd DIR     a task asleep in the handler (its path is on a
 *                            userfaultfd page that is not there yet)
 *   unload_test loop DIR     call 452 until SIGTERM, alternating modes: 0 and
 *                            the new mode, or ENOSYS and the old one; exit
 *                            0 if some calls were served
 *
 * A task inside the module makes rmmod wait; the task's call completes
 * with mainline's result, and rmmod then finishes. On x86_64 the module
 * runs around syscall_trace_enter(), which holds ptrace's entry stop and
 * seccomp: tasks parked there are inside. Elsewhere (arm64) it serves
 * from sys_ni_syscall(), after both: rmmod must not wait for them, and
 * their call, let go after the unload, gives ENOSYS. TAP output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <semaphore.h>
#include <stddef.h>
#include <linux/elf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sys/klog.h>
#include <time.h>

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int test_no, failed;
static char file[4096];

#ifdef __x86_64__
static const int stops_inside = 1;
#else
static const int stops_inside;
#endif

static void result(int ok, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++test_no, name);
	fflush(stdout);
	if (!ok)
		failed++;
}

static void diag(const char *fmt, const char *s, long v)
{
	printf("# ");
	printf(fmt, s, v);
	printf("\n");
}

static int module_state(char *buf, size_t len)
{
	int fd = open("/sys/module/fchmodat2/initstate", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static pid_t start_rmmod(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(syscall(SYS_delete_module, "fchmodat2", 0) ? 1 : 0);
	return pid;
}

static int named;		/* "named": wait for the log line naming it */
static pid_t parked;		/* the task parked inside */

/* Whether the kernel log has LINE. */
static int klog_has(const char *line)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, line) != NULL;
}

/* The state letter of PID in /proc (R, S, D, I, ...), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Write S to PATH: 0, or the errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * A long wait must not look like a hung task nor stop suspend: rmmod
 * sleeps idle and freezable. The freezer's test mode (pm_test=freezer)
 * freezes every task, as suspend does, and thaws them again.
 */
static void check_wait_is_benign(pid_t rmmod)
{
	int i, idle = 0, running = 0, other = 0, err;
	char st, seen = 0;

	/*
	 * rmmod polls the module's count every 20 ms: asleep, it must be I
	 * (TASK_IDLE), never D; between two naps it is R, and one sample
	 * can fall there (more often on a busy host). So: 50 samples over
	 * half a second, each I or R, and some I.
	 */
	for (i = 0; i < 50; i++) {
		st = proc_state(rmmod);
		if (st == 'I') {
			idle++;
		} else if (st == 'R') {
			running++;
		} else {
			other++;
			seen = st;
		}
		usleep(10000);
	}
	result(idle > 0 && !other,
	       "rmmod waits idle (asleep in state I, never D): no hung-task report, no load");
	printf("# rmmod's state in 50 samples: I %d, R %d, other %d%s%c\n",
	       idle, running, other, other ? ": " : "", other ? seen : ' ');
	if (write_file("/sys/power/pm_test", "freezer")) {
		printf("ok %d # SKIP the freezer: no /sys/power/pm_test (a kernel without CONFIG_PM_DEBUG)\n",
		       ++test_no);
		return;
	}
	err = write_file("/sys/power/state", "freeze");
	write_file("/sys/power/pm_test", "none");
	result(!err, "suspend's freezer freezes every task while rmmod waits (pm_test=freezer)");
	if (err)
		printf("# /sys/power/state: %s\n", strerror(err));
}

/* rmmod must still be waiting, with the module going. */
static void check_rmmod_waits(pid_t rmmod)
{
	char state[32] = "", line[128];
	int status;

	sleep(2);
	if (named) {
		int i;

		/* the unload names what it waits for after 10 s, and so on */
		snprintf(line, sizeof(line),
			 "unload waits for pid %d (unload_test): stopped by a tracer",
			 (int)parked);
		for (i = 0; i < 60 && !klog_has(line); i++)
			usleep(500000);
		result(klog_has(line), "rmmod names the task it waits for in the kernel log");
		if (!klog_has(line))
			printf("# not in the log: %s\n", line);
		check_wait_is_benign(rmmod);
	}
	result(waitpid(rmmod, &status, WNOHANG) == 0,
	       "rmmod waits while a task is inside the module");
	result(module_state(state, sizeof(state)) == 0 &&
	       !strcmp(state, "going"), "the module is going while rmmod waits");
	if (strcmp(state, "going"))
		diag("initstate: %s%ld", state, 0);
}

/* rmmod must finish although a task is parked (not inside the module). */
static void check_rmmod_returns(pid_t rmmod)
{
	int status = -1, i;

	for (i = 0; i < 100 && waitpid(rmmod, &status, WNOHANG) == 0; i++)
		usleep(100000);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "rmmod completes while the task is parked outside the module");
}

/* INSIDE: the task was inside the module, and rmmod waited for it. */
static void check_rmmod_done(pid_t rmmod, int inside)
{
	char state[32];
	int status = -1;

	if (inside) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		waitpid(rmmod, &status, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		diag("%srmmod returned %ld ms after the task left", "",
		     (t1.tv_sec - t0.tv_sec) * 1000 +
		     (t1.tv_nsec - t0.tv_nsec) / 1000000);
		result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "rmmod completes once the task has left");
	}
	result(module_state(state, sizeof(state)) < 0,
	       "the module is gone after rmmod");
	errno = 0;
	result(syscall(__NR_fchmodat2, AT_FDCWD, file, 0600, 0) == -1 &&
	       errno == ENOSYS, "452 returns ENOSYS after the unload");
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)st.st_mode;
}

/*
 * The kernel stack of a task stopped inside the trampoline unwinds through
 * it to the system call entry (livepatch transitions, /proc/PID/stack and
 * lockup reports rely on that).
 */
static void check_stack(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n = -1;
	int fd;

	if (!stops_inside)
		return;
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	result(n > 0 && strstr(buf, "f2_x86_trace_enter_tramp") &&
	       strstr(buf, "do_syscall_64"),
	       "the stopped task's kernel stack unwinds through the trampoline to do_syscall_64");
	if (!strstr(buf, "do_syscall_64"))
		diag("%s%ld", buf, 0);
}

/* The system call number and the first argument/return register. */
static int tracee_regs(pid_t pid, long *nr, long *ret)
{
#ifdef __x86_64__
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -1;
	*nr = regs.orig_rax;
	*ret = regs.rax;
#else
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int n;

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return -1;
	*ret = regs.regs[0];
	iov.iov_base = &n;
	iov.iov_len = sizeof(n);
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_ARM_SYSTEM_CALL, &iov))
		return -1;
	*nr = n;
#endif
	return 0;
}

/* What the parked call of mode MODE must give, and the file's mode after. */
static void check_parked_result(long ret, int err, int mode, int before)
{
	char name[160];

	if (stops_inside) {
		snprintf(name, sizeof(name),
			 "the parked fchmodat2 returned 0 and the mode is 0%o",
			 mode);
		result(ret == 0 && mode_of(file) == (S_IFREG | mode), name);
	} else {
		result(ret == -1 && err == ENOSYS && mode_of(file) == before,
		       "the parked fchmodat2, let go after the unload, gave ENOSYS and left the mode");
	}
	if (ret)
		diag("fchmodat2: %s %ld", strerror(err), ret);
}

static void test_ptrace(void)
{
	int before = mode_of(file), status;
	pid_t child, rmmod;
	long nr = -1, ret = -1;

	child = fork();
	if (child == 0) {
		long r;

		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		r = syscall(__NR_fchmodat2, AT_FDCWD, file, 0640, 0);
		_exit(r == 0 ? 0 : errno == ENOSYS ? 2 : 1);
	}
	waitpid(child, &status, 0);
	ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)PTRACE_O_TRACESYSGOOD);
	/* run to the entry stop of the next system call: 452 */
	ptrace(PTRACE_SYSCALL, child, NULL, NULL);
	waitpid(child, &status, 0);
	result(WIFSTOPPED(status) && WSTOPSIG(status) == (SIGTRAP | 0x80) &&
	       !tracee_regs(child, &nr, &ret) && nr == __NR_fchmodat2,
	       "tracee stopped at the entry of 452");

	check_stack(child);
	parked = child;
	rmmod = start_rmmod();
	if (stops_inside)
		check_rmmod_waits(rmmod);
	else
		check_rmmod_returns(rmmod);

	ptrace(PTRACE_SYSCALL, child, NULL, NULL);
	waitpid(child, &status, 0);
	result(WIFSTOPPED(status) && !tracee_regs(child, &nr, &ret) &&
	       nr == __NR_fchmodat2 && ret == (stops_inside ? 0 : -ENOSYS),
	       stops_inside ? "the stopped call completes with 0 at its exit stop" :
	       "the stopped call gives -ENOSYS at its exit stop");
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	check_parked_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1,
			    WIFEXITED(status) && WEXITSTATUS(status) == 2 ? ENOSYS : 0,
			    0640, before);
	check_rmmod_done(rmmod, stops_inside);
}

struct notif_call {
	int listener;
	sem_t ready;
	long ret;
	int err;
};

/* This thread alone: 452 goes to the supervisor (the main thread). */
static void *notif_caller(void *arg)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fchmodat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { ARRAY_LEN(insns), insns };
	struct notif_call *c = arg;

	c->listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	c->err = errno;
	sem_post(&c->ready);
	if (c->listener < 0)
		return NULL;
	errno = 0;
	c->ret = syscall(__NR_fchmodat2, AT_FDCWD, file, 0614, 0);
	c->err = errno;
	return NULL;
}

static void test_seccomp(void)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct notif_call call = { .listener = -1 };
	int before = mode_of(file);
	pthread_t thread;
	pid_t rmmod;

	sem_init(&call.ready, 0, 0);
	pthread_create(&thread, NULL, notif_caller, &call);
	sem_wait(&call.ready);
	if (call.listener < 0) {
		diag("seccomp listener: %s%ld", strerror(call.err), 0);
		result(0, "a seccomp USER_NOTIF filter for 452 installed");
		pthread_join(thread, NULL);
		return;
	}
	memset(&req, 0, sizeof(req));
	result(ioctl(call.listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0 &&
	       req.data.nr == __NR_fchmodat2,
	       "the supervisor holds the task's 452");

	rmmod = start_rmmod();
	if (stops_inside)
		check_rmmod_waits(rmmod);
	else
		check_rmmod_returns(rmmod);

	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	result(ioctl(call.listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0,
	       "the supervisor lets the call continue");
	pthread_join(thread, NULL);
	close(call.listener);
	check_parked_result(call.ret, call.err, 0614, before);
	check_rmmod_done(rmmod, stops_inside);
}

struct uffd_call {
	char *path;
	long ret;
	int err;
};

static void *uffd_caller(void *arg)
{
	struct uffd_call *c = arg;

	c->ret = syscall(__NR_fchmodat2, AT_FDCWD, c->path, 0604, 0);
	c->err = errno;
	return NULL;
}

static void test_uffd(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	struct uffd_call call;
	pthread_t thread;
	char *area, *src;
	pid_t rmmod;
	int uffd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	area = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = aligned_alloc(page, page);
	reg.range.start = (unsigned long)area;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) || area == MAP_FAILED || !src) {
		diag("userfaultfd setup: %s%ld", strerror(errno), 0);
		result(0, "userfaultfd set up");
		return;
	}
	call.path = area;
	pthread_create(&thread, NULL, uffd_caller, &call);
	/* the caller is asleep in the handler, copying its path */
	result(read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT,
	       "fchmodat2 sleeps in the handler on a missing page");

	rmmod = start_rmmod();
	check_rmmod_waits(rmmod);

	memset(src, 0, page);
	strcpy(src, file);
	copy.dst = (unsigned long)area;
	copy.src = (unsigned long)src;
	copy.len = page;
	ioctl(uffd, UFFDIO_COPY, &copy);
	pthread_join(thread, NULL);
	result(call.ret == 0 && mode_of(file) == (S_IFREG | 0604),
	       "the sleeping call completes with 0 and the mode is 0604");
	if (call.ret)
		diag("fchmodat2: %s %ld", strerror(call.err), call.ret);
	check_rmmod_done(rmmod, 1);
}

static atomic_int loop_stop;

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&loop_stop, 1);
}

/*
 * Alternate 0600 and 0640 on the file until SIGTERM: each call either
 * sets the new mode (served) or gives ENOSYS and leaves the old one (not
 * loaded); anything else ends the loop with status 1. At SIGTERM, exit 0
 * only if some calls were served.
 */
static int test_loop(void)
{
	long served = 0, enosys = 0, n;
	int before, after, want;

	signal(SIGTERM, on_term);
	for (n = 0; !atomic_load(&loop_stop); n++) {
		want = (n & 1) ? 0640 : 0600;
		before = mode_of(file);
		errno = 0;
		if (syscall(__NR_fchmodat2, AT_FDCWD, file, want, 0) == 0) {
			served++;
			want |= S_IFREG;
		} else if (errno == ENOSYS) {
			enosys++;
			want = before;
		} else {
			perror("fchmodat2 during load/unload");
			return 1;
		}
		after = mode_of(file);
		if (after != want) {
			fprintf(stderr, "fchmodat2 during load/unload: mode %o, expected %o\n",
				after, want);
			return 1;
		}
	}
	printf("# calling loop: %ld served, %ld ENOSYS\n", served, enosys);
	unlink(file);
	return served > 0 ? 0 : 1;
}

/* A step that hangs (the kernel never answers) fails the run, in time. */
static void on_alarm(int sig)
{
	static const char msg[] = "not ok - unload_test missed its deadline\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

int main(int argc, char **argv)
{
	void (*test)(void);
	int fd, plan;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ptrace|named|seccomp|uffd|loop DIR\n", argv[0]);
		return 2;
	}
	snprintf(file, sizeof(file), "%s/unload.%d", argv[2], (int)getpid());
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	close(fd);
	if (!strcmp(argv[1], "loop"))
		return test_loop();
	if (!strcmp(argv[1], "ptrace") ||
	    (!strcmp(argv[1], "named") && stops_inside)) {
		named = !strcmp(argv[1], "named");
		plan = stops_inside ? 9 + 3 * named : 6;
		test = test_ptrace;
	} else if (!strcmp(argv[1], "seccomp")) {
		plan = stops_inside ? 8 : 6;
		test = test_seccomp;
	} else if (!strcmp(argv[1], "uffd")) {
		plan = 7;
		test = test_uffd;
	} else {
		fprintf(stderr, "%s: unknown case %s\n", argv[0], argv[1]);
		return 2;
	}
	printf("TAP version 13\n1..%d\n", plan);
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	alarm(120);
	test();
	alarm(0);
	if (test_no != plan) {
		diag("%s: %ld results for the plan", argv[1], test_no);
		failed++;
	}
	unlink(file);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       test_no - failed, failed);
	return failed ? 1 : 0;
}
