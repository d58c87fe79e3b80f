// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_ptrace - a tracer sees fchmodat2 (452) as it sees any system call the
 * kernel implements, and is obeyed: the entry stop shows number 452 and
 * its arguments, the exit stop the real result; a tracer that changes the
 * number (452 -> getpid, getpid -> 452), the arguments (the first one
 * too: on arm it shares its register with the result), or skips the call
 * at the entry stop, or rewrites the result at the exit stop, gets its way;
 * writing the register the task passed the number in (ax, x8, r7) changes
 * nothing; a seccomp SECCOMP_RET_TRACE stop names 452 and the call then
 * proceeds. x86_64, i386, AArch64 and AArch32, each with its own register
 * interface.
 *
 * Each case forks a child that stops itself; the parent traces it with
 * PTRACE_SYSCALL and tells entry from exit with PTRACE_GET_SYSCALL_INFO.
 *
 * Usage: subsys_ptrace [-d DIR]   (works in a new directory below DIR)
 */
#include "subsys.h"

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <sys/uio.h>
#include <linux/elf.h>

/*
 * The registers a tracer reads and writes at a stop, per ABI: the system
 * call number, the result, the first four arguments, and the register the
 * task passed the number in. x86 keeps them in user_regs_struct: the
 * number in orig_ax, while ax (where it came) holds -ENOSYS, then the
 * result. AArch64: the NT_PRSTATUS regset, the number in
 * NT_ARM_SYSTEM_CALL (x8 is only what the task passed). AArch32: struct
 * user_regs (PTRACE_GETREGS), the number read from PTRACE_GET_SYSCALL_INFO
 * and set with PTRACE_SET_SYSCALL (r7 is only what the task passed). On
 * arm the result and the first argument are one register, r0/x0.
 */
#if defined(__x86_64__)
#define SELF_ARCH		AUDIT_ARCH_X86_64
#define subsys_regs struct user_regs_struct
#define R_NR(r)		((r)->orig_rax)
#define R_RET(r)	((r)->rax)
#define R_PASSED(r)	((r)->rax)
#define R_A0(r)		((r)->rdi)
#define R_A1(r)		((r)->rsi)
#define R_A2(r)		((r)->rdx)
#define R_A3(r)		((r)->r10)
#elif defined(__i386__)
#define SELF_ARCH		AUDIT_ARCH_I386
#define subsys_regs struct user_regs_struct
#define R_NR(r)		((r)->orig_eax)
#define R_RET(r)	((r)->eax)
#define R_PASSED(r)	((r)->eax)
#define R_A0(r)		((r)->ebx)
#define R_A1(r)		((r)->ecx)
#define R_A2(r)		((r)->edx)
#define R_A3(r)		((r)->esi)
#elif defined(__aarch64__)
#define SELF_ARCH		AUDIT_ARCH_AARCH64
#define subsys_regs struct user_regs_struct	/* glibc's user_pt_regs */
#define R_RET(r)	((r)->regs[0])
#define R_PASSED(r)	((r)->regs[8])
#define R_A0(r)		((r)->regs[0])
#define R_A1(r)		((r)->regs[1])
#define R_A2(r)		((r)->regs[2])
#define R_A3(r)		((r)->regs[3])
#elif defined(__arm__)
#define SELF_ARCH		AUDIT_ARCH_ARM
#ifndef PTRACE_SET_SYSCALL
#define PTRACE_SET_SYSCALL	23
#endif
#define subsys_regs struct user_regs
#define R_RET(r)	((r)->uregs[0])
#define R_PASSED(r)	((r)->uregs[7])
#define R_A0(r)		((r)->uregs[0])
#define R_A1(r)		((r)->uregs[1])
#define R_A2(r)		((r)->uregs[2])
#define R_A3(r)		((r)->uregs[3])
#else
#error "subsys_ptrace knows x86_64, i386, AArch64 and AArch32"
#endif

/* the number at an AArch32 exit stop: PTRACE_GET_SYSCALL_INFO has none */
#define NR_UNKNOWN	(-2L)

static char work[PATH_MAX / 2];
static int wfd = -1;

/*
 * What a tracer hook gets at each system call stop: the number, result,
 * arguments and passed-number register as the tracer sees them; a hook
 * changes them and sets regs_changed, and the tracer writes back what
 * differs from what it read.
 */
struct stop {
	pid_t pid;
	bool entry;		/* else exit */
	struct __ptrace_syscall_info info;
	long nr, ret, arg[4], passed;
	bool regs_changed;
	long nr_read;		/* as read */
	subsys_regs raw;		/* as read */
};

/* Read a stop's registers into @s (s->info already read). */
static int read_stop(struct stop *s)
{
	subsys_regs *r = &s->raw;
#if defined(__aarch64__)
	struct iovec iov = { r, sizeof(*r) };
	int n;
	struct iovec iov_nr = { &n, sizeof(n) };

	if (ptrace(PTRACE_GETREGSET, s->pid, (void *)NT_PRSTATUS, &iov) ||
	    ptrace(PTRACE_GETREGSET, s->pid, (void *)NT_ARM_SYSTEM_CALL,
		   &iov_nr))
		return -1;
	s->nr = n;
#else
	if (ptrace(PTRACE_GETREGS, s->pid, NULL, r))
		return -1;
#if defined(__arm__)
	if (s->info.op == PTRACE_SYSCALL_INFO_ENTRY)
		s->nr = (long)s->info.entry.nr;
	else if (s->info.op == PTRACE_SYSCALL_INFO_SECCOMP)
		s->nr = (long)s->info.seccomp.nr;
	else
		s->nr = NR_UNKNOWN;
#else
	s->nr = (long)R_NR(r);
#endif
#endif
	s->nr_read = s->nr;
	s->ret = (long)R_RET(r);
	s->passed = (long)R_PASSED(r);
	s->arg[0] = (long)R_A0(r);
	s->arg[1] = (long)R_A1(r);
	s->arg[2] = (long)R_A2(r);
	s->arg[3] = (long)R_A3(r);
	return 0;
}

/*
 * Write back @s as the hook left it: the arguments and the passed-number
 * register, then the result if the hook changed it (on arm it shares r0/x0
 * with the first argument, on x86 ax with the passed number), then the
 * number if the hook changed it.
 */
static int write_stop(struct stop *s)
{
	subsys_regs r = s->raw;

	R_A0(&r) = s->arg[0];
	R_A1(&r) = s->arg[1];
	R_A2(&r) = s->arg[2];
	R_A3(&r) = s->arg[3];
	R_PASSED(&r) = s->passed;
	if (s->ret != (long)R_RET(&s->raw))
		R_RET(&r) = s->ret;
#if defined(__aarch64__)
	{
		struct iovec iov = { &r, sizeof(r) };
		int n = s->nr;
		struct iovec iov_nr = { &n, sizeof(n) };

		if (ptrace(PTRACE_SETREGSET, s->pid, (void *)NT_PRSTATUS,
			   &iov))
			return -1;
		if (s->nr != s->nr_read &&
		    ptrace(PTRACE_SETREGSET, s->pid,
			   (void *)NT_ARM_SYSTEM_CALL, &iov_nr))
			return -1;
		return 0;
	}
#elif defined(__arm__)
	if (ptrace(PTRACE_SETREGS, s->pid, NULL, &r))
		return -1;
	if (s->nr != s->nr_read &&
	    ptrace(PTRACE_SET_SYSCALL, s->pid, NULL, (void *)s->nr))
		return -1;
	return 0;
#else
	R_NR(&r) = s->nr;
	return ptrace(PTRACE_SETREGS, s->pid, NULL, &r) ? -1 : 0;
#endif
}

static int fixture(void)
{
	return make_file(wfd, "file", 0644) || make_link(wfd, "link", "file");
}

/*
 * Fork a child that stops itself and then runs @body (exit status 0: its
 * own checks passed); trace it, calling @hook at every system call stop
 * (and at a seccomp stop, with entry set and info.op SECCOMP). Returns the
 * child's wait status, or -1.
 */
static int run_traced(void (*body)(void), void (*hook)(struct stop *s))
{
	struct stop s;
	int status, deliver = 0;
	pid_t pid;

	pid = t_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		body();
		t_child_exit();
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
			    PTRACE_O_TRACESECCOMP))) {
		setup_error("starting to trace", "", errno);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	for (;;) {
		int sig;

		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)deliver) ||
		    waitpid(pid, &status, 0) != pid) {
			setup_error("PTRACE_SYSCALL", "", errno);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return status;
		deliver = 0;
		if (!WIFSTOPPED(status))
			continue;
		sig = WSTOPSIG(status);
		if (sig != (SIGTRAP | 0x80) &&
		    status >> 8 != (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			/* a signal: deliver it on the next resume */
			if (sig != SIGTRAP && sig != SIGSTOP)
				deliver = sig;
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.pid = pid;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(s.info),
			   &s.info) <= 0 ||
		    read_stop(&s)) {
			setup_error("reading the stop", "", errno);
			continue;
		}
		s.entry = s.info.op != PTRACE_SYSCALL_INFO_EXIT;
		hook(&s);
		if (s.regs_changed && write_stop(&s))
			setup_error("writing the registers", "", errno);
	}
}

static void expect_exit_0(int status)
{
	if (status == -1)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	t_fail("traced child: wait status 0x%x", status);
}

/* the tracee's string at @addr, as the tracer reads it */
static void peek_string(pid_t pid, unsigned long addr, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i + sizeof(long) <= size; i += sizeof(long)) {
		long word;

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, pid, (void *)(addr + i), NULL);
		if (errno) {
			buf[i] = '\0';
			return;
		}
		memcpy(buf + i, &word, sizeof(long));
		if (memchr(&word, 0, sizeof(long)))
			return;
	}
	buf[size - 1] = '\0';
}

/* ---------------------------------------------------------------------- */

static int seen_entries, seen_exits;
static long long exit_rval[4];
static char entry_path[4][64];
static unsigned long long entry_args[4][4];

static void b_two_calls(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0640, NOFOLLOW), EOPNOTSUPP);
}

static void h_record(struct stop *s)
{
	if (s->entry && s->info.op == PTRACE_SYSCALL_INFO_ENTRY &&
	    s->info.entry.nr == __NR_fchmodat2) {
		if (seen_entries < 4) {
			memcpy(entry_args[seen_entries], s->info.entry.args,
			       sizeof(entry_args[0]));
			peek_string(s->pid, s->info.entry.args[1],
				    entry_path[seen_entries],
				    sizeof(entry_path[0]));
		}
		/* (the number from orig_ax or NT_ARM_SYSTEM_CALL: a second
		 * source; on AArch32 it is PTRACE_GET_SYSCALL_INFO's too)
		 */
		if ((unsigned long)s->nr != __NR_fchmodat2 ||
		    s->info.arch != SELF_ARCH) {
			t_fail("entry: number %ld, arch 0x%x",
			       s->nr, s->info.arch);
		}
		seen_entries++;
	} else if (!s->entry && seen_entries > seen_exits) {
		if (seen_exits < 4)
			exit_rval[seen_exits] = s->info.exit.rval;
		if (s->ret != (long)s->info.exit.rval) {
			t_fail("exit: result register %ld, rval %lld", s->ret,
			       (long long)s->info.exit.rval);
		}
		seen_exits++;
	}
}

static void entry_stop_shows_452_and_args_exit_stop_the_result(void)
{
	if (fixture())
		return;
	seen_entries = seen_exits = 0;
	expect_exit_0(run_traced(b_two_calls, h_record));
	EXPECT_EQ(seen_entries, 2);
	EXPECT_EQ(seen_exits, 2);
	if (seen_entries == 2 && seen_exits == 2) {
		EXPECT_EQ((int)entry_args[0][0], wfd);
		EXPECT_EQ(strcmp(entry_path[0], "file"), 0);
		EXPECT_EQ(entry_args[0][2], 0600);
		EXPECT_EQ(entry_args[0][3], 0);
		EXPECT_EQ(exit_rval[0], 0);
		EXPECT_EQ(strcmp(entry_path[1], "link"), 0);
		EXPECT_EQ(entry_args[1][3], AT_SYMLINK_NOFOLLOW);
		EXPECT_EQ(exit_rval[1], -EOPNOTSUPP);
	}
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

/* ---------------------------------------------------------------------- */

static void b_452_becomes_getpid(void)
{
	long ret = sys_fchmodat2(wfd, "file", 0600, 0);

	if (ret != getpid()) {
		diag("452 changed to getpid returned %ld (%s), pid %d", ret,
		     errno_name(errno), (int)getpid());
		t_state.failures++;
	}
}

static void h_452_to_getpid(struct stop *s)
{
	if (s->entry && (unsigned long)s->nr == __NR_fchmodat2) {
		s->nr = SYS_getpid;
		s->regs_changed = true;
	}
}

static void tracer_changes_452_to_getpid_at_entry_obeyed(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_452_becomes_getpid, h_452_to_getpid));
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void b_getpid_becomes_452(void)
{
	/* getpid ignores them; as 452 they are its arguments */
	EXPECT_OK(syscall(SYS_getpid, wfd, "file", 0600, 0));
	EXPECT_ERR(syscall(SYS_getpid, wfd, "link", 0600, NOFOLLOW),
		   EOPNOTSUPP);
}

static void h_getpid_to_452(struct stop *s)
{
	if (s->entry && s->nr == SYS_getpid &&
	    (int)s->arg[0] == wfd && s->arg[2] == 0600) {
		s->nr = __NR_fchmodat2;
		s->regs_changed = true;
	}
}

static void tracer_changes_getpid_to_452_at_entry_obeyed(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_getpid_becomes_452, h_getpid_to_452));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

static void b_passed_register(void)
{
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
}

/*
 * The register the task passed the number in is not the number once the
 * call has entered: x86 moved it to orig_ax and holds -ENOSYS in ax, arm64
 * keeps it in syscallno (NT_ARM_SYSTEM_CALL, PTRACE_SET_SYSCALL). A tracer
 * that writes getpid's number there changes nothing: the call is 452.
 */
static void h_passed_register(struct stop *s)
{
	if (!s->entry || (unsigned long)s->nr != __NR_fchmodat2)
		return;
	s->passed = SYS_getpid;
	s->regs_changed = true;
}

static void tracer_writes_the_register_the_number_came_in_call_stays_452(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_passed_register, h_passed_register));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

static void b_args_changed(void)
{
	/* the tracer makes it 0640 on "file", then NOFOLLOW on "link" */
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
	EXPECT_ERR(sys_fchmodat2(wfd, "link", 0604, 0), EOPNOTSUPP);
}

static void h_args(struct stop *s)
{
	if (!s->entry || (unsigned long)s->nr != __NR_fchmodat2)
		return;
	if (s->arg[2] == 0600)
		s->arg[2] = 0640;
	else if (s->arg[2] == 0604)
		s->arg[3] = AT_SYMLINK_NOFOLLOW;
	s->regs_changed = true;
}

static void tracer_changes_arguments_at_entry_obeyed(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_args_changed, h_args));
	EXPECT_MODE(wfd, "file", S_IFREG | 0640);
	EXPECT_MODE(wfd, "link", S_IFLNK | 0777);
}

#define BAD_FD	9999

static void b_dfd_changed(void)
{
	/* the tracer makes the directory fd valid */
	EXPECT_OK(sys_fchmodat2(BAD_FD, "file", 0600, 0));
}

static void h_dfd(struct stop *s)
{
	if (s->entry && (unsigned long)s->nr == __NR_fchmodat2 &&
	    (int)s->arg[0] == BAD_FD) {
		s->arg[0] = wfd;	/* on arm the register of the result */
		s->regs_changed = true;
	}
}

static void tracer_changes_the_first_argument_at_entry_obeyed(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_dfd_changed, h_dfd));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

static void b_skipped(void)
{
	EXPECT_EQ(sys_fchmodat2(wfd, "file", 0600, 0), 4242);
}

static void h_skip(struct stop *s)
{
	static bool skipped;

	if (s->entry && (unsigned long)s->nr == __NR_fchmodat2) {
		s->nr = -1;	/* skip the call */
		s->regs_changed = true;
		skipped = true;
	} else if (!s->entry && skipped) {
		/* a skipped call returns what the tracer says */
		s->ret = 4242;
		s->regs_changed = true;
		skipped = false;
	}
}

static void tracer_skips_452_at_entry_and_sets_its_result(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_skipped, h_skip));
	EXPECT_MODE(wfd, "file", S_IFREG | 0644);
}

static void b_result_rewritten(void)
{
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0600, 0), EXDEV);
}

static void h_rewrite_exit(struct stop *s)
{
	static bool in_452;

	if (s->entry) {
		in_452 = (unsigned long)s->nr == __NR_fchmodat2;
	} else if (in_452) {
		EXPECT_EQ(s->info.exit.rval, 0);
		s->ret = -EXDEV;
		s->regs_changed = true;
		in_452 = false;
	}
}

static void tracer_rewrites_result_at_exit_call_still_done(void)
{
	if (fixture())
		return;
	expect_exit_0(run_traced(b_result_rewritten, h_rewrite_exit));
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

/* ---------------------------------------------------------------------- */

static int seccomp_stops;
static unsigned long seccomp_msg;

static int install_trace_filter(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fchmodat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 77),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(insns),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void b_seccomp_trace(void)
{
	if (!t_setup(!install_trace_filter(), "seccomp", "TRACE"))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0600, 0));
	/* the tracer skips this one at the seccomp stop */
	EXPECT_ERR(sys_fchmodat2(wfd, "file", 0604, 0), EACCES);
}

static void h_seccomp(struct stop *s)
{
	if (s->info.op != PTRACE_SYSCALL_INFO_SECCOMP)
		return;
	seccomp_stops++;
	EXPECT_EQ(s->info.seccomp.nr, __NR_fchmodat2);
	seccomp_msg = s->info.seccomp.ret_data;
	if (s->arg[2] == 0604) {
		s->nr = -1;
		s->ret = -EACCES;
		s->regs_changed = true;
	}
}

static void seccomp_trace_stop_names_452_then_call_proceeds(void)
{
	if (fixture())
		return;
	seccomp_stops = 0;
	seccomp_msg = 0;
	expect_exit_0(run_traced(b_seccomp_trace, h_seccomp));
	EXPECT_EQ(seccomp_stops, 2);
	EXPECT_EQ(seccomp_msg, 77);
	EXPECT_MODE(wfd, "file", S_IFREG | 0600);
}

static const struct subsys_case cases[] = {
	CASE(entry_stop_shows_452_and_args_exit_stop_the_result),
	CASE(tracer_changes_452_to_getpid_at_entry_obeyed),
	CASE(tracer_changes_getpid_to_452_at_entry_obeyed),
	CASE(tracer_writes_the_register_the_number_came_in_call_stays_452),
	CASE(tracer_changes_arguments_at_entry_obeyed),
	CASE(tracer_changes_the_first_argument_at_entry_obeyed),
	CASE(tracer_skips_452_at_entry_and_sets_its_result),
	CASE(tracer_rewrites_result_at_exit_call_still_done),
	CASE(seccomp_trace_stop_names_452_then_call_proceeds),
};

int main(int argc, char **argv)
{
	static const char * const files[] = { "file", "link", NULL };
	const char *parent = subsys_dir_option(argc, argv);

	t_plan(ARRAY_SIZE(cases));
	umask(0);
	wfd = subsys_workdir(parent, "ptrace", work, sizeof(work));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	subsys_remove_workdir(wfd, work, files, NULL);
	return t_finish();
}
