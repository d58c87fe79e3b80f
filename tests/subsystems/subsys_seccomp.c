// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_seccomp - seccomp filters apply to fchmodat2 (452) exactly as to any
 * system call the kernel itself implements: ERRNO, KILL_PROCESS,
 * KILL_THREAD, strict mode, TRAP, TRACE without a tracer, LOG, USER_NOTIF
 * (answered, and continued), and an allow-list that lets 452 through. Each filter is installed in a child
 * (filters cannot be removed); the parent checks the file's mode.
 *
 * Usage: subsys_seccomp [-d DIR] [-c CASE]
 *   works in a new directory below DIR; -c runs only the case named CASE
 *   (to count what one case leaves behind, e.g. before an rmmod)
 */
#include "subsys.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define SELF_ARCH		AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define SELF_ARCH		AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SELF_ARCH		AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define SELF_ARCH		AUDIT_ARCH_ARM
#else
#error "subsys_seccomp knows x86_64, i386, AArch64 and AArch32"
#endif

#define NR_I386_FCHMODAT2	452

static char work[PATH_MAX / 2];
static int wfd = -1;

static int sys_seccomp(unsigned int op, unsigned int flags, void *args)
{
	return syscall(__NR_seccomp, op, flags, args);
}

/*
 * A filter: for @arch, system call @nr gets @action, every other call is
 * allowed (or gets @other, when nonzero).
 */
static int install(unsigned int arch, unsigned int nr, unsigned int action,
		   unsigned int other, unsigned int flags)
{
	unsigned int dflt = other ? other : SECCOMP_RET_ALLOW;
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, dflt),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(insns),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return sys_seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/*
 * The allow-list style of container runtimes: 452 and exiting are
 * allowed, everything else fails with EACCES.
 */
static int install_allow_list(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SELF_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fchmodat2, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(insns),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return sys_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int fixture(void)
{
	return make_file(wfd, "file", 0644) || make_link(wfd, "link", "file");
}

/* Fork; the child runs @fn, which exits 0 when all its checks passed. */
static pid_t child(void (*fn)(void))
{
	pid_t pid;

	pid = t_fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		/* SIGSYS dumps core: not into the test's directory */
		setrlimit(RLIMIT_CORE, &no_core);
		fn();
		t_child_exit();
	}
	return pid;
}

static void run_child(void (*fn)(void))
{
	pid_t pid = child(fn);

	if (pid > 0)
		t_expect_child(pid);
}

/* ---------------------------------------------------------------------- */

static void no_filter_call_succeeds_mode_changed(void)
{
	if (fixture())
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

static void c_errno_eperm(void)
{
	if (install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_ERRNO | EPERM, 0,
		    0)) {
		setup_error("seccomp", "ERRNO(EPERM)", errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0), EPERM);
	/* the filter comes before the call's own checks */
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, ~0u), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0600, NOFOLLOW), EPERM);
	EXPECT_ERR(sys_fchmodat2(wfd, "missing", 0600, 0), EPERM);
	/* and it is about 452 only */
	EXPECT_OK(syscall(SYS_fchmodat, wfd, "link", 0640));
}

static void errno_eperm_filter_refuses_452_before_its_own_checks(void)
{
	if (fixture())
		return;
	run_child(c_errno_eperm);
	EXPECT_MODE(wfd, "file", S_IFREG | 0640);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

static void c_errno_enosys(void)
{
	if (install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_ERRNO | ENOSYS, 0,
		    0)) {
		setup_error("seccomp", "ERRNO(ENOSYS)", errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0), ENOSYS);
}

static void errno_enosys_filter_hides_452_no_event_mode_unchanged(void)
{
	int in;

	if (fixture() || subsys_watch(work, "file", &in))
		return;
	run_child(c_errno_enosys);
	EXPECT_EQ(subsys_attrib_events(in, NULL), 0);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
	close(in);
}

static void c_kill(void)
{
	if (install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_KILL_PROCESS, 0,
		    0)) {
		setup_error("seccomp", "KILL_PROCESS", errno);
		return;
	}
	sys_fchmodat2(wfd, "file", 0600, 0);
	diag("still alive after 452");
	t_state.failures++;
}

static void kill_process_filter_kills_with_sigsys_mode_unchanged(void)
{
	pid_t pid;
	int status;

	if (fixture())
		return;
	pid = child(c_kill);
	if (pid < 0)
		return;
	status = t_wait(pid);
	if (status != -1 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS))
		t_fail("child status 0x%x, not killed by SIGSYS", status);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void c_strict(void)
{
	/* strict mode: read, write, exit and sigreturn only */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
		_exit(3);
	syscall(__NR_fchmodat2, wfd, "file", 0600, 0);
	syscall(__NR_exit, 4);
}

static void strict_mode_kills_a_452_caller_with_sigkill_mode_unchanged(void)
{
	pid_t pid;
	int status;

	if (fixture())
		return;
	pid = child(c_strict);
	if (pid < 0)
		return;
	status = t_wait(pid);
	if (status != -1 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
		t_fail("child status 0x%x, not killed by SIGKILL", status);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void *t_call(void *arg)
{
	(void)arg;
	sys_fchmodat2(wfd, "file", 0600, 0);
	diag("thread still alive after 452");
	t_state.failures++;
	return NULL;
}

static void c_kill_thread(void)
{
	pthread_t t;

	if (install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_KILL_THREAD, 0, 0)) {
		setup_error("seccomp", "KILL_THREAD", errno);
		return;
	}
	/* the other thread dies; this one goes on */
	if (pthread_create(&t, NULL, t_call, NULL) || pthread_join(t, NULL))
		setup_error("pthread", "", errno);
}

static void kill_thread_filter_kills_only_the_calling_thread(void)
{
	if (fixture())
		return;
	run_child(c_kill_thread);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

/* Written by the SIGSYS handler: atomic accesses, not volatile. */
static int trap_signo, trap_code, trap_nr, trap_errno;
static unsigned int trap_arch;
#define TRAP_SET(var, val)	__atomic_store_n(&(var), (val), __ATOMIC_SEQ_CST)
#define TRAP_GET(var)		__atomic_load_n(&(var), __ATOMIC_SEQ_CST)

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	TRAP_SET(trap_signo, sig);
	TRAP_SET(trap_code, si->si_code);
	TRAP_SET(trap_nr, si->si_syscall);
	TRAP_SET(trap_arch, si->si_arch);
	TRAP_SET(trap_errno, si->si_errno);	/* SECCOMP_RET_DATA */
}

static void c_trap(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };
	long ret;

	if (sigaction(SIGSYS, &sa, NULL) ||
	    install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_TRAP | 42, 0, 0)) {
		setup_error("seccomp", "TRAP", errno);
		return;
	}
	ret = sys_fchmodat2(wfd, "file", 0600, 0);
	EXPECT_EQ(TRAP_GET(trap_signo), SIGSYS);
	EXPECT_EQ(TRAP_GET(trap_code), 1);	/* SYS_SECCOMP */
	EXPECT_EQ(TRAP_GET(trap_nr), __NR_fchmodat2);
	EXPECT_EQ(TRAP_GET(trap_arch), SELF_ARCH);
	EXPECT_EQ(TRAP_GET(trap_errno), 42);
	/*
	 * the call was skipped, its registers rolled back (syscall_rollback):
	 * on x86 ax holds the number again, on arm x0/r0 the first argument
	 */
#if defined(__x86_64__) || defined(__i386__)
	EXPECT_EQ(ret, __NR_fchmodat2);
#else
	EXPECT_EQ(ret, wfd);
#endif
}

static void trap_filter_sends_sigsys_naming_452_mode_unchanged(void)
{
	if (fixture())
		return;
	run_child(c_trap);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void c_trace(void)
{
	if (!t_setup(!install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_TRACE, 0,
			      0), "seccomp", "TRACE"))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0), ENOSYS);
}

static void trace_filter_without_tracer_enosys_mode_unchanged(void)
{
	if (fixture())
		return;
	run_child(c_trace);
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void c_log(void)
{
	if (!t_setup(!install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_LOG, 0, 0),
		     "seccomp", "LOG"))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0600, NOFOLLOW), EOPNOTSUPP);
}

static void log_filter_lets_452_through_mode_changed(void)
{
	if (fixture())
		return;
	run_child(c_log);
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

static void c_allow_list(void)
{
	long ret;

	if (install_allow_list())
		_exit(3);
	/* nothing but 452 and exit: report through the exit status */
	ret = sys_fchmodat2(wfd, "file", 0600, 0);
	if (ret)
		_exit(10 + errno);
	ret = sys_fchmodat2(wfd, "link", 0600, NOFOLLOW);
	if (ret != -1 || errno != EOPNOTSUPP)
		_exit(4);
	if (syscall(SYS_getpid) != -1 || errno != EACCES)
		_exit(5);
	_exit(0);
}

static void allow_list_filter_with_452_lets_it_through_mode_changed(void)
{
	if (fixture())
		return;
	run_child(c_allow_list);
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

static void c_other_filtered(void)
{
	if (install(SELF_ARCH, SYS_fchmodat, SECCOMP_RET_ERRNO | EPERM, 0, 0)) {
		setup_error("seccomp", "ERRNO(EPERM) for fchmodat", errno);
		return;
	}
	EXPECT_ERR(syscall(SYS_fchmodat, wfd, "file", 0640), EPERM);
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
}

static void filter_on_fchmodat_leaves_452_alone(void)
{
	if (fixture())
		return;
	run_child(c_other_filtered);
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

/* ---------------------------------------------------------------------- */

/*
 * USER_NOTIF: a supervisor (the parent) receives the call with its number
 * and arguments, and answers it: an error, or "continue" (5.5+), which
 * lets the kernel (or the module) run it after all.
 */
static void user_notif(bool cont)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int sv[2], listener = -1;
	pid_t pid;

	if (fixture())
		return;
	if (!t_setup(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
		     "socketpair", ""))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd;
		long ret;

		close(sv[0]);
		fd = install(SELF_ARCH, __NR_fchmodat2, SECCOMP_RET_USER_NOTIF,
			     0, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (fd < 0)
			_exit(3);
		/* hand the listener to the parent, then call */
		{
			char c = 0;
			struct iovec iov = { &c, 1 };
			union {
				struct cmsghdr h;
				char buf[CMSG_SPACE(sizeof(int))];
			} u;
			struct msghdr msg = {
				.msg_iov = &iov, .msg_iovlen = 1,
				.msg_control = u.buf,
				.msg_controllen = sizeof(u.buf),
			};
			struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
			if (sendmsg(sv[1], &msg, 0) != 1)
				_exit(4);
		}
		close(fd);
		ret = sys_fchmodat2(wfd, "file", 0600, 0);
		if (cont)
			_exit(ret == 0 ? 0 : 10 + errno);
		_exit(ret == -1 && errno == EPERM ? 0 : 5);
	}
	close(sv[1]);
	if (pid < 0) {
		setup_error("fork", "", errno);
		close(sv[0]);
		return;
	}
	{
		char c;
		struct iovec iov = { &c, 1 };
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} u;
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
		};
		struct cmsghdr *cm;

		if (recvmsg(sv[0], &msg, 0) == 1) {
			cm = CMSG_FIRSTHDR(&msg);
			if (cm && cm->cmsg_type == SCM_RIGHTS)
				memcpy(&listener, CMSG_DATA(cm), sizeof(int));
		}
	}
	close(sv[0]);
	if (listener < 0) {
		setup_error("receiving the listener", "", errno);
		kill(pid, SIGKILL);
		t_wait(pid);
		return;
	}
	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
		setup_error("SECCOMP_IOCTL_NOTIF_RECV", "", errno);
		kill(pid, SIGKILL);
	} else {
		EXPECT_EQ(req.data.nr, __NR_fchmodat2);
		EXPECT_EQ(req.data.arch, SELF_ARCH);
		EXPECT_EQ((int)req.data.args[0], wfd);
		EXPECT_EQ(req.data.args[2], 0600);
		EXPECT_EQ(req.data.args[3], 0);
		EXPECT_EQ(req.pid, pid);
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		if (cont)
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		else
			resp.error = -EPERM;
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp))
			setup_error("SECCOMP_IOCTL_NOTIF_SEND", "", errno);
	}
	close(listener);
	t_expect_child(pid);
	EXPECT_MODE(wfd, "file", S_IFREG | (cont ? 0600 : 0644));
}

static void user_notif_sees_452_and_its_answer_eperm_is_returned(void)
{
	user_notif(false);
}

static void user_notif_continue_lets_452_run_mode_changed(void)
{
	user_notif(true);
}

/* ---------------------------------------------------------------------- */

#ifdef __x86_64__
/* The i386 system call 452 from a 64-bit process (int $0x80). */
static long int80_fchmodat2(int dfd, const char *path, unsigned int mode,
			    unsigned int flags)
{
	long ret;

	asm volatile ("int $0x80"
		      : "=a" (ret)
		      : "0" ((long)NR_I386_FCHMODAT2), "b" ((long)dfd),
			"c" ((long)(unsigned long)path), "d" ((long)mode),
			"S" ((long)flags)
		      : "memory", "r8", "r9", "r10", "r11");
	if (ret < 0 && ret > -4096) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* in the low 4 GiB, as an i386 call needs: a non-PIE static binary's data */
static const char int80_name[] = "file";

/*
 * A kernel booted with ia32_emulation=0 (or built without it) runs no i386
 * system call: int $0x80 raises SIGSEGV. Tried once, in a child.
 */
static int int80_works(void)
{
	static int works = -1;
	int status = 0;
	pid_t pid;

	if (works >= 0)
		return works;
	pid = fork();
	if (pid == 0) {
		long ret;

		asm volatile ("int $0x80" : "=a" (ret) : "0" (20L) /* getpid */
			      : "memory", "r8", "r9", "r10", "r11");
		_exit(ret == getpid() ? 0 : 1);
	}
	works = pid > 0 && waitpid(pid, &status, 0) == pid &&
		WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return works;
}

static int int80_usable(void)
{
	if ((unsigned long)int80_name > 0xffffffffUL) {
		t_skip("the path is not below 4 GiB");
		return 0;
	}
	if (!int80_works()) {
		t_skip("this kernel runs no i386 system calls (int $0x80 faults: ia32 emulation off)");
		return 0;
	}
	return 1;
}

static void int80_from_64bit_process_mode_changed(void)
{
	if (fixture() || !int80_usable())
		return;
	/* int80_usable(): i386 calls run, so ENOSYS is a failure */
	EXPECT_OK(int80_fchmodat2(wfd, int80_name, 0600, 0));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	EXPECT_ERR(int80_fchmodat2(wfd, int80_name, 0600, ~0u), EINVAL);
}

static void c_int80_filtered(void)
{
	/* a filter for the i386 ABI only; the 64-bit 452 stays allowed */
	if (install(AUDIT_ARCH_I386, NR_I386_FCHMODAT2,
		    SECCOMP_RET_ERRNO | EPERM, 0, 0)) {
		setup_error("seccomp", "i386 ERRNO(EPERM)", errno);
		return;
	}
	EXPECT_ERR(int80_fchmodat2(wfd, int80_name, 0600, 0), EPERM);
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0640, 0));
}

static void int80_from_64bit_process_filtered_as_i386(void)
{
	if (fixture() || !int80_usable())
		return;
	EXPECT_OK(int80_fchmodat2(wfd, int80_name, 0644, 0));
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
	run_child(c_int80_filtered);
	EXPECT_MODE(wfd, "file", S_IFREG | 0640);
}
#endif

static const struct subsys_case cases[] = {
	CASE(no_filter_call_succeeds_mode_changed),
	CASE(errno_eperm_filter_refuses_452_before_its_own_checks),
	CASE(errno_enosys_filter_hides_452_no_event_mode_unchanged),
	CASE(kill_process_filter_kills_with_sigsys_mode_unchanged),
	CASE(kill_thread_filter_kills_only_the_calling_thread),
	CASE(strict_mode_kills_a_452_caller_with_sigkill_mode_unchanged),
	CASE(trap_filter_sends_sigsys_naming_452_mode_unchanged),
	CASE(trace_filter_without_tracer_enosys_mode_unchanged),
	CASE(log_filter_lets_452_through_mode_changed),
	CASE(allow_list_filter_with_452_lets_it_through_mode_changed),
	CASE(filter_on_fchmodat_leaves_452_alone),
	CASE(user_notif_sees_452_and_its_answer_eperm_is_returned),
	CASE(user_notif_continue_lets_452_run_mode_changed),
#ifdef __x86_64__
	CASE(int80_from_64bit_process_mode_changed),
	CASE(int80_from_64bit_process_filtered_as_i386),
#endif
};

int main(int argc, char **argv)
{
	static const char * const files[] = { "file", "link", NULL };
	const char *parent = NULL, *only = NULL;
	unsigned int i, n = ARRAY_SIZE(cases);
	int c;

	while ((c = getopt(argc, argv, "d:c:")) != -1) {
		if (c == 'd') {
			parent = optarg;
		} else if (c == 'c') {
			only = optarg;
		} else {
			fprintf(stderr, "usage: %s [-d DIR] [-c CASE]\n", argv[0]);
			return 2;
		}
	}
	if (only) {
		for (i = 0; i < n && strcmp(cases[i].name, only); i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: no case %s\n", argv[0], only);
			return 2;
		}
	}
	t_plan(only ? 1 : n);
	umask(0);
	wfd = subsys_workdir(parent, "seccomp", work, sizeof(work));
	subsys_run_cases(cases, n, only, wfd);
	subsys_remove_workdir(wfd, work, files, NULL);
	return t_finish();
}
