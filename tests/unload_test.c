// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading the module while tasks are parked in system calls. Runs in
 * the VM guest as root with fchmodat2.ko loaded; ends with the module
 * unloaded.
 *
 *   unload_test ptrace DIR   a task's 452 held at its entry stop by a tracer
 *   unload_test getpid DIR   a task's getpid held at its entry stop by an
 *                            idle tracer (an strace suspended with Ctrl-Z)
 *   unload_test seccomp DIR  a task's 452 held by a seccomp USER_NOTIF
 *                            supervisor
 *   unload_test notif DIR    the same for an unrelated call (getppid)
 *   unload_test sysemu DIR   a task run under PTRACE_SYSEMU (UML, gVisor's
 *                            ptrace platform), every call emulated
 *   unload_test uffd DIR     a task asleep inside fchmodat2 (its path is on
 *                            a userfaultfd page that is not there yet)
 *   unload_test forced DIR   the same, and rmmod -f (O_TRUNC)
 *   unload_test hotplug DIR  the same call, on cpu1, which goes off line
 *                            while it sleeps there (rmmod still refused)
 *                            and on line again before it is let go
 *   unload_test killed DIR   a process whose 452 sleeps there, SIGKILLed
 *   unload_test frozen DIR   a process whose 452 waits on DIR's frozen
 *                            filesystem (FIFREEZE: DIR is a mount of a
 *                            filesystem that can freeze), then SIGSTOPped
 *   unload_test deleg DIR    a process whose 452 waits inside the break of an
 *                            NFS client's read delegation (DIR: a tmpfs that
 *                            nfsd exports, mounted back over lo)
 *   unload_test CASE DIR HOLD   ...holding the stranger HOLD seconds (8)
 *   unload_test loop DIR     call 452 until SIGTERM, alternating modes: 0 and
 *                            the new mode, or ENOSYS and the old one; exit
 *                            0 if some calls were served
 *
 * rmmod waits for no task that is not inside fchmodat2 itself: a task
 * parked in system call entry (a tracer's stop, a seccomp notification)
 * is held far longer than rmmod may take, rmmod finishes meanwhile, and
 * the call, let go, gets what it gets without the module (452: ENOSYS;
 * any other call: its own result). A task inside fchmodat2 holds a
 * module reference: rmmod fails at once, "in use" (EWOULDBLOCK), and
 * succeeds once the call is done; a forced rmmod waits for that call
 * alone. TAP output.
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
#include <linux/fs.h>	/* FIFREEZE, FITHAW */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <time.h>

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */
#include "harness.h"
#include "nfs_loopback.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static char file[4096];
/* the case's DIR; the directory whose filesystem is frozen, or -1 */
static const char *test_dir;
static int frozen_fd = -1;
/* the loopback interface was taken down (the deleg case) */
static bool lo_is_down;
/* cpu1 was taken off line (the hotplug case) */
static bool cpu1_is_down;
/* what the case waits for now, said if it misses its deadline */
static const char *waiting_in = "";

/*
 * How long a stranger is held (third argument; 8 s unless given): longer
 * than an unload may take, UNLOAD_MAX_S.
 */
static int HOLD_S = 8;
#define UNLOAD_MAX_S 4

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

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * delete_module() as kmod's rmmod calls it (-f: O_TRUNC), in a child.
 * While other tasks call 452 (the stress lane's callers), the module is
 * in use whenever one of their calls is in flight (EWOULDBLOCK): try
 * again, every 2 ms, as an administrator would, for up to UNLOAD_MAX_S.
 */
static pid_t start_rmmod(int flags)
{
	double t0 = now();
	pid_t pid = fork();

	if (pid == 0) {
		while (syscall(SYS_delete_module, "fchmodat2",
			       O_NONBLOCK | flags)) {
			if (errno != EWOULDBLOCK || now() - t0 > UNLOAD_MAX_S)
				_exit(1);
			usleep(2000);
		}
		_exit(0);
	}
	return pid;
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
 * Whether the suspend freezer can freeze PID (and it then thaws it): a
 * cgroup v1 freezer, which freezes its tasks as suspend does, holding
 * PID alone (suspend's own test mode would also need every other task
 * freezable: a task asleep on a userfaultfd page is not).
 */
static int freeze_alone(pid_t pid)
{
	static const char root[] = "/tmp/f2-freezer";
	char buf[32] = "";
	int frozen = 0, i, fd;
	ssize_t n;

	mkdir(root, 0755);
	if (mount("none", root, "cgroup", 0, "freezer") && errno != EBUSY) {
		diag("mount the cgroup v1 freezer: %s", strerror(errno));
		return 0;
	}
	mkdir("/tmp/f2-freezer/rmmod", 0755);
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (write_file("/tmp/f2-freezer/rmmod/tasks", buf) ||
	    write_file("/tmp/f2-freezer/rmmod/freezer.state", "FROZEN")) {
		diag("freeze pid %s", buf);
		goto out;
	}
	for (i = 0; i < 100 && !frozen; i++) {
		usleep(50000);
		fd = open("/tmp/f2-freezer/rmmod/freezer.state", O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		frozen = !strcmp(buf, "FROZEN\n");
	}
	if (!frozen)
		diag("freezer.state after 5 s: %s", buf);
	write_file("/tmp/f2-freezer/rmmod/freezer.state", "THAWED");
out:
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	write_file("/tmp/f2-freezer/tasks", buf);
	rmdir("/tmp/f2-freezer/rmmod");
	umount(root);
	return frozen;
}

/*
 * A long wait must not look like a hung task nor stop suspend: rmmod
 * sleeps idle and freezable.
 */
static void check_wait_is_benign(pid_t rmmod)
{
	int i, idle = 0, running = 0, other = 0;
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
	t_result(idle > 0 && !other,
		 "rmmod waits idle (asleep in state I, never D): no hung-task report, no load");
	printf("# rmmod's state in 50 samples: I %d, R %d, other %d%s%c\n",
	       idle, running, other, other ? ": " : "", other ? seen : ' ');
	t_result(freeze_alone(rmmod),
		 "rmmod waits freezable (a cgroup v1 freezer freezes it): suspend is not held back");
}

/* rmmod -f must still be waiting, with the module going. */
static void check_rmmod_waits(pid_t rmmod)
{
	char state[32] = "";
	int status;

	sleep(2);
	check_wait_is_benign(rmmod);
	t_result(waitpid(rmmod, &status, WNOHANG) == 0,
		 "rmmod -f waits while a task is inside fchmodat2");
	t_result(module_state(state, sizeof(state)) == 0 &&
		 !strcmp(state, "going"), "the module is going while rmmod -f waits");
	if (strcmp(state, "going"))
		diag("initstate: %s", state);
}

/*
 * rmmod must finish within UNLOAD_MAX_S while a stranger is parked
 * (STILL_PARKED: the caller checks it is, after): the unload must not
 * wait for it, and the module must be gone.
 */
static void check_rmmod_returns(pid_t rmmod, const char *stranger)
{
	double t0 = now();
	int status = -1, done = 0;
	char name[200], state[32];

	while (now() - t0 < UNLOAD_MAX_S &&
	       !(done = waitpid(rmmod, &status, WNOHANG) == rmmod))
		usleep(20000);
	snprintf(name, sizeof(name),
		 "rmmod completes in %.1f s (under %d s): %s",
		 now() - t0, UNLOAD_MAX_S, stranger);
	t_result(done && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", name);
	if (!done) {
		kill(rmmod, SIGKILL);
		waitpid(rmmod, &status, 0);
	}
	t_result(module_state(state, sizeof(state)) < 0,
		 "the module is gone after rmmod");
}

/*
 * Unload while a stranger is held: rmmod must return in time (above), and
 * the stranger stays held for HOLD_S seconds from the start of rmmod,
 * longer than rmmod may take.
 */
static void unload_while_held(const char *stranger)
{
	double t0 = now();

	check_rmmod_returns(start_rmmod(0), stranger);
	while (now() - t0 < HOLD_S)
		usleep(100000);
}

/* An rmmod -f that waited for a task inside: it finishes once it left. */
static void check_rmmod_done(pid_t rmmod)
{
	char state[32];
	int status = -1;
	double t0 = now();

	waitpid(rmmod, &status, 0);
	printf("# rmmod -f returned %.0f ms after the task left\n",
	       (now() - t0) * 1000);
	t_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "rmmod -f completes once the task has left");
	t_result(module_state(state, sizeof(state)) < 0,
		 "the module is gone after rmmod -f");
}

static void check_enosys_after(void)
{
	errno = 0;
	t_result(syscall(__NR_fchmodat2, AT_FDCWD, file, 0600, 0) == -1 &&
		 errno == ENOSYS, "452 returns ENOSYS after the unload");
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)st.st_mode;
}

/*
 * The kernel stack of a task stopped at a system call's entry, as
 * /proc/PID/stack shows it: the stop inside syscall_trace_enter(). On
 * x86_64, for a task that the stub runs syscall_trace_enter() for (a
 * traced one, as here), the walk ends there: the stub's memory
 * (hook_x86_64.c) is not kernel text to the unwinder, which stops at
 * it; without the module it goes on to do_syscall_64. On arm64 the
 * module is not on this path: the walk reaches el0_svc.
 */
/* /proc/@pid/stack into @buf (empty if unreadable); its length, or -1 */
static ssize_t read_stack(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	return n;
}

static void check_stack(pid_t pid)
{
	char buf[4096];
	ssize_t n = read_stack(pid, buf, sizeof(buf));

#ifdef __x86_64__
	t_result(n > 0 && strstr(buf, "ptrace_stop") &&
		 strstr(buf, "syscall_trace_enter"),
		 "the stopped task's kernel stack shows its stop in syscall_trace_enter");
	if (!strstr(buf, "syscall_trace_enter"))
#else
	t_result(n > 0 && strstr(buf, "ptrace_stop") && strstr(buf, "el0_svc"),
		 "the stopped task's kernel stack unwinds from its stop to el0_svc");
	if (!strstr(buf, "el0_svc"))
#endif
		diag("%s", buf);
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

/* A parked 452, let go after the unload: ENOSYS, and the mode untouched. */
static void check_parked_enosys(long ret, int err, int before)
{
	t_result(ret == -1 && err == ENOSYS && mode_of(file) == before,
		 "the parked fchmodat2, let go after the unload, gave ENOSYS and left the mode");
	if (ret != -1 || err != ENOSYS)
		diag("fchmodat2: %s %ld", strerror(err), ret);
}

/*
 * A child stopped by ptrace at the entry of system call NR (452, or an
 * unrelated one) for HOLD_S seconds while rmmod runs; then let go.
 */
static void test_entry_stop(long call_nr)
{
	int before = mode_of(file), status;
	long nr = -1, ret = -1;
	pid_t child;
	char name[160];

	child = fork();
	if (child == 0) {
		long r;

		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		if (call_nr == __NR_fchmodat2) {
			r = syscall(__NR_fchmodat2, AT_FDCWD, file, 0640, 0);
			_exit(r == 0 ? 0 : errno == ENOSYS ? 2 : 1);
		}
		r = syscall(SYS_getpid);
		_exit(r == getpid() ? 0 : 1);
	}
	waitpid(child, &status, 0);
	ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)PTRACE_O_TRACESYSGOOD);
	/* run to the entry stop of the next system call */
	ptrace(PTRACE_SYSCALL, child, NULL, NULL);
	waitpid(child, &status, 0);
	snprintf(name, sizeof(name), "tracee stopped at the entry of %s",
		 call_nr == __NR_fchmodat2 ? "452" : "getpid");
	t_result(WIFSTOPPED(status) && WSTOPSIG(status) == (SIGTRAP | 0x80) &&
		 !tracee_regs(child, &nr, &ret) && nr == call_nr, "%s", name);
	check_stack(child);

	/* an idle tracer: it does nothing for HOLD_S seconds */
	unload_while_held(call_nr == __NR_fchmodat2 ?
			  "a tracer holds 452 at its entry stop" :
			  "an idle tracer holds getpid at its entry stop");
	t_result(proc_state(child) == 't', "the tracee was held at its entry stop all along");

	ptrace(PTRACE_SYSCALL, child, NULL, NULL);
	waitpid(child, &status, 0);
	if (call_nr == __NR_fchmodat2) {
		t_result(WIFSTOPPED(status) && !tracee_regs(child, &nr, &ret) &&
			 nr == __NR_fchmodat2 && ret == -ENOSYS,
			 "the held 452 gives -ENOSYS at its exit stop");
	} else {
		t_result(WIFSTOPPED(status) && !tracee_regs(child, &nr, &ret) &&
			 nr == call_nr && ret == child,
			 "the held getpid returns the tracee's pid at its exit stop");
	}
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	if (call_nr == __NR_fchmodat2)
		check_parked_enosys(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1,
				    WIFEXITED(status) && WEXITSTATUS(status) == 2 ? ENOSYS : 0,
				    before);
	else
		t_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "the tracee's getpid gave its pid, once let go");
	check_enosys_after();
}

struct notif_call {
	long nr;
	int listener;
	sem_t ready;
	long ret;
	int err;
};

/* This thread alone: its call NR goes to the supervisor (main thread). */
static void *notif_caller(void *arg)
{
	struct notif_call *c = arg;
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, c->nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { ARRAY_LEN(insns), insns };

	c->listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	c->err = errno;
	sem_post(&c->ready);
	if (c->listener < 0)
		return NULL;
	errno = 0;
	if (c->nr == __NR_fchmodat2)
		c->ret = syscall(__NR_fchmodat2, AT_FDCWD, file, 0614, 0);
	else
		c->ret = syscall(SYS_getppid);
	c->err = errno;
	return NULL;
}

/* A seccomp USER_NOTIF supervisor holds call NR for HOLD_S seconds. */
static void test_notif(long call_nr)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct notif_call call = { .nr = call_nr, .listener = -1 };
	int before = mode_of(file);
	pthread_t thread;

	sem_init(&call.ready, 0, 0);
	pthread_create(&thread, NULL, notif_caller, &call);
	sem_wait(&call.ready);
	if (call.listener < 0) {
		diag("seccomp listener: %s", strerror(call.err));
		t_result(0, "a seccomp USER_NOTIF filter installed");
		pthread_join(thread, NULL);
		return;
	}
	memset(&req, 0, sizeof(req));
	t_result(ioctl(call.listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0 &&
		 req.data.nr == call_nr,
		 call_nr == __NR_fchmodat2 ? "the supervisor holds the task's 452" :
		 "the supervisor holds the task's getppid");

	unload_while_held(call_nr == __NR_fchmodat2 ?
			  "a seccomp supervisor holds 452" :
			  "a seccomp supervisor holds getppid");

	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	t_result(ioctl(call.listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0,
		 "the supervisor lets the call continue");
	pthread_join(thread, NULL);
	close(call.listener);
	if (call_nr == __NR_fchmodat2)
		check_parked_enosys(call.ret, call.err, before);
	else
		t_result(call.ret == getppid(),
			 "the held getppid returns the parent's pid, once let go");
	check_enosys_after();
}

/*
 * PTRACE_SYSEMU: the tracer emulates every call of the child (as UML and
 * gVisor's ptrace platform do): the kernel never runs them. The child
 * calls getpid in a loop, the tracer answers 4242 and, at one stop, stays
 * idle for HOLD_S seconds while rmmod runs; the loop goes on after it.
 */
static void test_sysemu(void)
{
	int status, i, ok = 1, held = 0;
	long nr, ret;
	pid_t child;
	int unloaded = 0;

	child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		for (i = 0; i < 200; i++)
			if (syscall(SYS_getpid) != 4242)
				_exit(1);
		/* emulated too: the tracer turns this into the exit */
		syscall(SYS_getpid);
		_exit(2);
	}
	waitpid(child, &status, 0);
	for (i = 0; i <= 200 && ok; i++) {
		ptrace(PTRACE_SYSEMU, child, NULL, NULL);
		waitpid(child, &status, 0);
		ok = WIFSTOPPED(status) && !tracee_regs(child, &nr, &ret) &&
			nr == SYS_getpid;
		if (!ok)
			break;
		if (i == 100) {
			/* held at a SYSEMU stop while rmmod runs */
			unload_while_held("a PTRACE_SYSEMU tracer holds a call");
			unloaded = 1;
			held = proc_state(child) == 't';
		}
#ifdef __x86_64__
		{
			struct user_regs_struct regs;

			ptrace(PTRACE_GETREGS, child, NULL, &regs);
			regs.rax = i < 200 ? 4242 : 0;
			ptrace(PTRACE_SETREGS, child, NULL, &regs);
		}
#else
		{
			struct user_regs_struct regs;
			struct iovec iov = { &regs, sizeof(regs) };

			ptrace(PTRACE_GETREGSET, child, (void *)NT_PRSTATUS, &iov);
			regs.regs[0] = i < 200 ? 4242 : 0;
			ptrace(PTRACE_SETREGSET, child, (void *)NT_PRSTATUS, &iov);
		}
#endif
	}
	t_result(ok && i == 201 && unloaded,
		 "201 getpid calls stopped at their PTRACE_SYSEMU stop, one held while rmmod ran");
	t_result(held, "the tracee was held at its SYSEMU stop all along");
	/* the last call answered 0: the loop ended, the next call is exit */
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	t_result(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		 "every emulated getpid got the tracer's answer, before and after the unload");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		diag("child status %x", status);
	check_enosys_after();
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

/* The module's reference count, from /proc/modules; -1 if not there. */
static int module_refs(void)
{
	char line[512];
	int refs = -1;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "fchmodat2 %*u %d", &refs) == 1)
			break;
	fclose(f);
	return refs;
}

enum uffd_how { UFFD_INUSE, UFFD_FORCED, UFFD_HOTPLUG };

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/*
 * A 452 asleep inside fchmodat2 (on a userfaultfd page): rmmod is refused
 * at once ("in use"), or with UFFD_FORCED (rmmod -f) waits for that call
 * alone. UFFD_HOTPLUG: the caller runs on cpu1 alone and cpu1 goes off
 * line while it sleeps there (a sleeping task is not migrated; it stays
 * cpu1's to wake on); the call keeps its reference, rmmod is refused,
 * cpu1 comes back, and the call, let go, completes.
 */
static void test_uffd(enum uffd_how how)
{
	int forced = how == UFFD_FORCED;
	pthread_attr_t attr;
	cpu_set_t cpus;
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	struct uffd_call call;
	char state[32] = "";
	pthread_t thread;
	char *area, *src;
	pid_t rmmod = -1;
	int uffd, err, refs;
	double t0;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	area = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = aligned_alloc(page, page);
	reg.range.start = (unsigned long)area;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) || area == MAP_FAILED || !src) {
		diag("userfaultfd setup: %s", strerror(errno));
		t_result(0, "userfaultfd set up");
		return;
	}
	call.path = area;
	pthread_attr_init(&attr);
	err = 0;
	if (how == UFFD_HOTPLUG) {
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		err = pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	}
	if (!err)
		err = pthread_create(&thread, &attr, uffd_caller, &call);
	pthread_attr_destroy(&attr);
	if (err) {
		diag("a thread to call 452%s: %s",
		     how == UFFD_HOTPLUG ? " on cpu1" : "", strerror(err));
		t_result(0, "a thread to call 452");
		return;
	}
	/* the caller is asleep in the handler, copying its path */
	t_result(read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		 msg.event == UFFD_EVENT_PAGEFAULT,
		 "fchmodat2 sleeps in the handler on a missing page");
	if (how == UFFD_HOTPLUG) {
		err = write_file(CPU1_ONLINE, "0");
		cpu1_is_down = !err;
		t_result(!err, "cpu1 goes off line while the call sleeps on it");
		if (err)
			diag("%s: %s", CPU1_ONLINE, strerror(err));
	}
	/* (more while the stress lane's callers run) */
	refs = module_refs();
	t_result(refs >= 1, "the call holds a reference to the module (/proc/modules)");
	if (refs < 1)
		diag("references: %ld", (long)refs);

	if (forced) {
		rmmod = start_rmmod(O_TRUNC);
		check_rmmod_waits(rmmod);
	} else {
		t0 = now();
		errno = 0;
		err = syscall(SYS_delete_module, "fchmodat2", O_NONBLOCK) ? errno : 0;
		t_result(err == EWOULDBLOCK && now() - t0 < 1 &&
			 module_state(state, sizeof(state)) == 0 &&
			 !strcmp(state, "live"),
			 "rmmod is refused at once, in use (EWOULDBLOCK), and the module stays live");
		if (err != EWOULDBLOCK)
			diag("delete_module: %s", strerror(err));
	}

	if (how == UFFD_HOTPLUG) {
		err = write_file(CPU1_ONLINE, "1");
		cpu1_is_down = err != 0;
		t_result(!err, "cpu1 goes on line again");
		if (err)
			diag("%s: %s", CPU1_ONLINE, strerror(err));
	}

	memset(src, 0, page);
	strcpy(src, file);
	copy.dst = (unsigned long)area;
	copy.src = (unsigned long)src;
	copy.len = page;
	ioctl(uffd, UFFDIO_COPY, &copy);
	pthread_join(thread, NULL);
	t_result(call.ret == 0 && mode_of(file) == (S_IFREG | 0604),
		 "the sleeping call completes with 0 and the mode is 0604");
	if (call.ret)
		diag("fchmodat2: %s %ld", strerror(call.err), call.ret);
	if (forced)
		check_rmmod_done(rmmod);
	else
		check_rmmod_returns(start_rmmod(0), "the call has returned");
	check_enosys_after();
}

/*
 * A process whose 452 is parked inside fchmodat2 (on a userfaultfd page
 * nobody serves) is killed: its call ends, the reference with it, and
 * rmmod, refused while it was parked, succeeds.
 */
static void test_killed(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int before = mode_of(file), status = 0, refs, err, p[2];
	pthread_t thread;
	char c = 0;
	pid_t child;

	if (pipe(p)) {
		t_result(0, "a pipe");
		return;
	}
	child = fork();
	if (child == 0) {
		struct uffdio_api api = { .api = UFFD_API };
		struct uffdio_register reg = { 0 };
		struct uffd_msg msg;
		struct uffd_call call;
		int uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
		char *area = mmap(NULL, page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		reg.range.start = (unsigned long)area;
		reg.range.len = page;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (uffd < 0 || area == MAP_FAILED ||
		    ioctl(uffd, UFFDIO_API, &api) ||
		    ioctl(uffd, UFFDIO_REGISTER, &reg))
			_exit(1);
		call.path = area;
		pthread_create(&thread, NULL, uffd_caller, &call);
		/* parked: say so, and never serve the page */
		if (read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			c = 1;
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	t_result(read(p[0], &c, 1) == 1 && c == 1,
		 "a child's fchmodat2 sleeps in the handler on a page nobody serves");
	close(p[0]);
	refs = module_refs();
	t_result(refs >= 1, "the call holds a reference to the module (/proc/modules)");
	errno = 0;
	err = syscall(SYS_delete_module, "fchmodat2", O_NONBLOCK) ? errno : 0;
	t_result(err == EWOULDBLOCK, "rmmod is refused, in use (EWOULDBLOCK)");
	kill(child, SIGKILL);
	t_result(waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
		 WTERMSIG(status) == SIGKILL, "SIGKILL ends the child, its call with it");
	check_rmmod_returns(start_rmmod(0), "the parked caller was killed");
	t_result(mode_of(file) == before, "the file's mode is unchanged");
	check_enosys_after();
}

/*
 * A process's 452 waits on a frozen filesystem (FIFREEZE: in
 * mnt_want_write(), uninterruptible), and gets SIGSTOP there: rmmod is
 * refused while the call waits; once the filesystem is thawed the call
 * completes, the process stops on its way out, and rmmod succeeds while
 * it stays stopped (the call has returned: it holds nothing); SIGCONT,
 * and the process sees 0. The freeze lasts a few seconds, far below the
 * hung-task limit; the filesystem is thawed on every path.
 */
static void test_frozen(void)
{
	int before = mode_of(file), status = 0, dfd, frozen, refs, err, n;
	char st = '?', state[32] = "";
	pid_t child;

	dfd = open(test_dir, O_RDONLY | O_DIRECTORY);
	frozen = dfd >= 0 && ioctl(dfd, FIFREEZE, 0) == 0;
	err = errno;
	if (frozen)
		frozen_fd = dfd;
	t_result(frozen, "the filesystem of the test directory is frozen (FIFREEZE)");
	if (!frozen) {
		diag("FIFREEZE: %s", strerror(err));
		if (dfd >= 0)
			close(dfd);
		return;
	}
	child = fork();
	if (child < 0) {
		/* (never kill(-1, ...) below) */
		err = errno;
		ioctl(dfd, FITHAW, 0);
		frozen_fd = -1;
		close(dfd);
		diag("fork: %s", strerror(err));
		return;
	}
	if (child == 0) {
		long ret = syscall(__NR_fchmodat2, AT_FDCWD, file, 0604, 0);

		_exit(ret == 0 ? 0 : ret == -1 ? 100 + errno % 100 : 99);
	}
	/* asleep in the call: D, uninterruptible, waiting for the thaw */
	for (n = 0; n < 500 && (st = proc_state(child)) != 'D'; n++)
		usleep(10000);
	t_result(child > 0 && st == 'D',
		 "a child's fchmodat2 waits on the frozen filesystem (state D)");
	refs = module_refs();
	t_result(refs >= 1, "the call holds a reference to the module (/proc/modules)");
	kill(child, SIGSTOP);
	usleep(200000);
	errno = 0;
	err = syscall(SYS_delete_module, "fchmodat2", O_NONBLOCK) ? errno : 0;
	t_result(err == EWOULDBLOCK && proc_state(child) == 'D' &&
		 module_state(state, sizeof(state)) == 0 && !strcmp(state, "live"),
		 "SIGSTOP sent, the call still waits: rmmod is refused, in use (EWOULDBLOCK)");
	if (err != EWOULDBLOCK)
		diag("delete_module: %s", strerror(err));
	for (n = 0; n < 5 && ioctl(dfd, FITHAW, 0); n++)
		usleep(100000);
	err = errno;
	t_result(n < 5, "the filesystem is thawed (FITHAW)");
	if (n == 5) {
		/* the child cannot finish; main() tries once more */
		diag("FITHAW: %s", strerror(err));
		return;
	}
	frozen_fd = -1;
	close(dfd);
	t_result(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status),
		 "the call completes and the child stops on its way out");
	t_result(mode_of(file) == (S_IFREG | 0604) && before != (S_IFREG | 0604),
		 "the mode is 0604");
	check_rmmod_returns(start_rmmod(0), "the stopped child's call has returned");
	kill(child, SIGCONT);
	t_result(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0,
		 "SIGCONT: the child's fchmodat2 returned 0");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		diag("child status %x", status);
	check_enosys_after();
}

/*
 * A process's 452 waits inside a delegation break: this machine's NFS
 * client holds a read delegation on the file, which nfsd exports
 * (DIR, over the loopback interface: nfs_loopback.h); notify_change()
 * hands back the delegated inode and the call waits in
 * break_deleg_wait() (interruptible, looking again every jiffy) until
 * the client returns the delegation or nfsd revokes it, a lease time
 * (10 s) after the recall.
 * The loopback interface is down meanwhile, so the recall reaches no
 * one: rmmod is refused while the call waits; lo up again, the call
 * completes (the delegation returned or revoked), and rmmod succeeds.
 */
static void test_deleg(void)
{
	static char mnt[PATH_MAX], buf[4096];
	const char *name = strrchr(file, '/') + 1, *failed;
	int before = mode_of(file), status = -1, mfd = -1, fd = -1, err, n;
	bool mounted = false, served = false;
	char st = '?', state[32] = "";
	struct stat sb;
	double t0;
	pid_t child;

	snprintf(mnt, sizeof(mnt), "%s/../f2-nfs-client", test_dir);
	if (mkdir(mnt, 0755) && errno != EEXIST)
		printf("# mkdir %s: %s\n", mnt, strerror(errno));
	t0 = now();
	waiting_in = " (in nfs_serve(): nfsd's setup)";
	failed = nfs_serve(test_dir);
	err = errno;
	served = !failed;
	printf("# nfsd set up in %.1f s\n", now() - t0);
	t0 = now();
	waiting_in = " (in mount(): the NFS client's mount over lo)";
	if (!failed && nfs_mount(mnt)) {
		failed = "mount nfs4 127.0.0.1:/";
		err = errno;
	}
	mounted = !failed;
	if (mounted)
		printf("# the client mounted in %.1f s\n", now() - t0);
	if (failed)
		printf("# %s: %s\n", failed, strerror(err));
	waiting_in = " (in the deleg case, after the mount)";
	t_result(!failed,
		 "nfsd exports the test directory, this machine's NFS client mounts it (NFSv4.2 over lo)");
	if (failed)
		goto out;
	/* no delegation in the grace period: end it (nfsdcld's file) */
	nfs_put(NFSD "/v4_end_grace", "Y\n");
	mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = mfd < 0 || stat(file, &sb) ? -1 :
		nfs_open_delegated(mfd, name, sb.st_ino);
	err = errno;
	t_result(fd >= 0, "the client holds a read delegation on the file (/proc/locks)");
	if (fd < 0) {
		printf("# no delegation: %s\n", strerror(err));
		goto out;
	}
	lo_is_down = !nfs_lo(false);
	t_result(lo_is_down, "the loopback interface is down: nfsd's recall reaches no client");
	if (!lo_is_down)
		goto out;
	child = fork();
	if (child < 0) {
		printf("# fork: %s\n", strerror(errno));
		goto out;
	}
	if (child == 0) {
		long ret = syscall(__NR_fchmodat2, AT_FDCWD, file, 0604, 0);

		_exit(ret == 0 ? 0 : ret == -1 ? 100 + errno % 100 : 99);
	}
	/* asleep in the break, interruptibly: S */
	for (n = 0; n < 500 && !(nfs_delegated(sb.st_ino, true) &&
				 (st = proc_state(child)) == 'S'); n++)
		usleep(10000);
	t_result(nfs_delegated(sb.st_ino, true) && st == 'S',
		 "a child's fchmodat2 waits in the delegation's break (/proc/locks: BREAKING; state S)");
	/*
	 * nfsd times its delegations out itself (fl_break_time 0): the
	 * wait wakes every jiffy to look again, and a running task's
	 * stack reads empty. Read it until it shows the wait.
	 */
	for (n = 0; n < 100; n++) {
		read_stack(child, buf, sizeof(buf));
		if (strstr(buf, "__break_lease"))
			break;
		usleep(10000);
	}
	t_result(strstr(buf, "__break_lease") && strstr(buf, "[fchmodat2]"),
		 "its kernel stack: __break_lease() called from the module");
	if (!strstr(buf, "[fchmodat2]"))
		printf("# /proc/%d/stack:\n%s", (int)child, buf);
	t_result(module_refs() >= 1,
		 "the call holds a reference to the module (/proc/modules)");
	errno = 0;
	err = syscall(SYS_delete_module, "fchmodat2", O_NONBLOCK) ? errno : 0;
	t_result(err == EWOULDBLOCK && nfs_delegated(sb.st_ino, true) &&
		 module_state(state, sizeof(state)) == 0 && !strcmp(state, "live"),
		 "rmmod is refused while the call waits in the break, in use (EWOULDBLOCK)");
	if (err != EWOULDBLOCK)
		printf("# delete_module: %s\n", strerror(err));
	lo_is_down = nfs_lo(true) != 0;
	t_result(!lo_is_down, "the loopback interface is up again");
	t0 = now();
	t_result(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0,
		 "the call completes: the child's fchmodat2 returned 0");
	printf("# the call returned %.1f s after lo came up\n", now() - t0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("# child status %x\n", status);
	t_result(mode_of(file) == (S_IFREG | 0604) && before != (S_IFREG | 0604),
		 "the mode is 0604");
	check_rmmod_returns(start_rmmod(0), "the call in the delegation break has returned");
	check_enosys_after();
out:
	if (lo_is_down)
		lo_is_down = nfs_lo(true) != 0;
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	if (mounted && umount(mnt) && umount2(mnt, MNT_DETACH))
		printf("# umount %s: %s\n", mnt, strerror(errno));
	if (served)
		nfs_stop();
	rmdir(mnt);
}

static void test_ptrace(void)
{
	test_entry_stop(__NR_fchmodat2);
}

static void test_getpid(void)
{
	test_entry_stop(SYS_getpid);
}

static void test_seccomp(void)
{
	test_notif(__NR_fchmodat2);
}

static void test_notif_other(void)
{
	test_notif(SYS_getppid);
}

static void test_inuse(void)
{
	test_uffd(UFFD_INUSE);
}

static void test_forced(void)
{
	test_uffd(UFFD_FORCED);
}

static void test_hotplug(void)
{
	test_uffd(UFFD_HOTPLUG);
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
	static const char msg[] = "not ok - unload_test missed its deadline";
	const char *in = waiting_in;

	(void)sig;
	/* never leave the filesystem frozen (everything on it would hang) */
	if (frozen_fd >= 0)
		ioctl(frozen_fd, FITHAW, 0);
	if (lo_is_down)
		nfs_lo(true);
	/* nor a CPU off line (open and write are async-signal-safe) */
	if (cpu1_is_down)
		write_file(CPU1_ONLINE, "1");
	if (write(1, msg, sizeof(msg) - 1) < 0 ||
	    write(1, in, strlen(in)) < 0 || write(1, "\n", 1) < 0)
		_exit(2);
	_exit(1);
}

static const struct {
	const char *name;
	void (*test)(void);
	int plan;
} cases[] = {
	{ "ptrace", test_ptrace, 8 },
	{ "getpid", test_getpid, 8 },
	{ "seccomp", test_seccomp, 6 },
	{ "notif", test_notif_other, 6 },
	{ "sysemu", test_sysemu, 6 },
	{ "uffd", test_inuse, 7 },
	{ "forced", test_forced, 10 },
	{ "hotplug", test_hotplug, 9 },
	{ "killed", test_killed, 8 },
	{ "frozen", test_frozen, 11 },
	{ "deleg", test_deleg, 13 },
};

int main(int argc, char **argv)
{
	unsigned int i, deadline;
	int fd;

	if (argc == 4)
		HOLD_S = atoi(argv[3]);
	if ((argc != 3 && argc != 4) || HOLD_S <= UNLOAD_MAX_S) {
		fprintf(stderr, "usage: %s ptrace|getpid|seccomp|notif|sysemu|uffd|forced|hotplug|killed|frozen|deleg|loop DIR [HOLD > %d]\n",
			argv[0], UNLOAD_MAX_S);
		return 2;
	}
	test_dir = argv[2];
	snprintf(file, sizeof(file), "%s/unload.%d", argv[2], (int)getpid());
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	close(fd);
	if (!strcmp(argv[1], "loop"))
		return test_loop();
	for (i = 0; i < ARRAY_LEN(cases) && strcmp(argv[1], cases[i].name); i++)
		;
	if (i == ARRAY_LEN(cases)) {
		fprintf(stderr, "%s: unknown case %s\n", argv[0], argv[1]);
		return 2;
	}
	t_plan(cases[i].plan);
	signal(SIGALRM, on_alarm);
	deadline = 60 + HOLD_S;
	/* the deleg case waits for a delegation and a lease time */
	if (cases[i].test == test_deleg)
		deadline += 60;
	alarm(deadline);
	cases[i].test();
	alarm(0);
	if (frozen_fd >= 0)	/* never leave a filesystem frozen */
		ioctl(frozen_fd, FITHAW, 0);
	if (cpu1_is_down)	/* nor a CPU off line */
		write_file(CPU1_ONLINE, "1");
	unlink(file);
	return t_finish();
}
