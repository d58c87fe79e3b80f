// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64: how system call 452 reaches the module.
 *
 * The syscall table ends before 452 and do_syscall_64() is noinstr, so no
 * "ni_syscall" function is called for it that could be hooked. Instead:
 *
 * 1. A probe on the sys_enter tracepoint makes the kernel set the syscall
 *    tracepoint work flag on every task, so every system call goes through
 *    syscall_trace_enter(), after ptrace and seccomp have had their say.
 * 2. An ftrace direct call on syscall_trace_enter() runs
 *    f2_x86_trace_enter_tramp (hook_x86_64_entry.S), which serves 452 in
 *    the task's context (preemptible, may sleep), stores the result in
 *    pt_regs->ax and returns -1: the dispatcher then skips the call and
 *    keeps ax, exactly as after a seccomp SECCOMP_RET_ERRNO.
 */
#include <linux/ftrace.h>
#include <linux/tracepoint.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/stacktrace.h>
#include <linux/kdebug.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <asm/syscall.h>
#include <asm/insn.h>
#include "fchmodat2.h"

DEFINE_PER_CPU(long, f2_x86_inflight);

static struct ftrace_ops f2_x86_direct_ops;
static unsigned long f2_x86_target;
static struct tracepoint *f2_x86_sys_enter;
static struct tracepoint *f2_x86_sys_exit;
static struct tracepoint *f2_x86_process_exit;
static bool f2_x86_x32;

/*
 * GCC emits syscall_trace_enter() as a constant-propagated clone on the
 * kernels this module knows. Exactly one of these must exist.
 */
static const char * const f2_x86_target_names[] = {
	"syscall_trace_enter.constprop.0",
	"syscall_trace_enter",
	"syscall_trace_enter.constprop.1",
	"syscall_trace_enter.isra.0",
};

const char *f2_arch_mechanism(void)
{
	return "x86_64 syscall_trace_enter direct call";
}

int f2_arch_native_present(void)
{
	return f2_lookup_name("__x64_sys_fchmodat2") != 0;
}

static void f2_x86_probe(void *data, struct pt_regs *regs, long id)
{
}

static void f2_x86_find_tracepoints(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		f2_x86_sys_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		f2_x86_sys_exit = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		f2_x86_process_exit = tp;
}

static bool f2_x86_in_tramp(const unsigned long *entries, unsigned int n);

static bool f2_x86_is_wide_ret(unsigned long addr)
{
#ifdef F2_HAVE_WIDE_SYSCALL_NR
	return addr == (unsigned long)f2_x86_tramp_wide_ret;
#else
	return false;
#endif
}

/*
 * A task can exit inside the counted region and never return into the
 * trampoline: seccomp kills it inside syscall_trace_enter() (strict mode,
 * SECCOMP_RET_KILL_THREAD, or KILL_PROCESS before 5.11's signal-based
 * kill), Syscall User Dispatch calls do_exit() there on 5.11 to 5.15.
 * Whatever killed it, take it out of the in-flight count as it exits, when
 * its own stack shows it was in the trampoline (the unwinder is exact:
 * compat.h refuses the guessing one). Every task exit pays one unwind
 * while the module is loaded; a normal exit has long left the trampoline.
 * An oops is counted by f2_x86_die() instead, before its stack is gone.
 */
static void f2_x86_exit_probe(void *data, struct task_struct *p)
{
	unsigned long entries[32];
	unsigned int n;

	if (p != current)
		return;
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	if (f2_x86_in_tramp(entries, n))
		this_cpu_dec(f2_x86_inflight);
}

/*
 * An oops ends the task inside the counted region too, but on x86
 * oops_end() rewinds the stack before make_task_dead(): by the time it
 * exits nothing on its stack shows the trampoline. Look while it still
 * does: the die chain runs on the dying task, before the rewind. Last in
 * the chain, so that when it runs no notifier kept the task alive (kgdb's
 * NOTIFY_STOP ends the chain before it), and it returns NOTIFY_DONE: the
 * task dies, or the machine panics (an oops in interrupt context, or
 * panic_on_oops).
 */
static int f2_x86_die(struct notifier_block *nb, unsigned long val,
		      void *data)
{
	unsigned long entries[48];
	unsigned int n;

	if (val != DIE_OOPS || in_interrupt())
		return NOTIFY_DONE;
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	if (f2_x86_in_tramp(entries, n))
		this_cpu_dec(f2_x86_inflight);
	return NOTIFY_DONE;
}

static struct notifier_block f2_x86_die_nb = {
	.notifier_call = f2_x86_die,
	.priority = INT_MIN,
};

/* Called from the trampoline for a number whose low bits say 452. */
long f2_x86_serve(long nr)
{
	struct pt_regs *regs = current_pt_regs();
	u32 unr = nr;

	if (in_ia32_syscall()) {
		if (unr != F2_NR_FCHMODAT2)
			return nr;
		regs->ax = f2_fchmodat2((int)regs->bx, compat_ptr(regs->cx),
					(umode_t)regs->dx,
					(unsigned int)regs->si);
		return -1;
	}
	if (unr != F2_NR_FCHMODAT2 && !f2_x86_x32)
		return nr;
	regs->ax = f2_fchmodat2((int)regs->di,
				(const char __user *)regs->si,
				(umode_t)regs->dx, (unsigned int)regs->r10);
	return -1;
}

#ifdef F2_HAVE_WIDE_SYSCALL_NR
/*
 * Called from the trampoline for a number whose upper 32 bits are not zero
 * (orig_ax), with what syscall_trace_enter() returned: the low 32 bits,
 * sign-extended, or -1. Without the module, a task with no entry work
 * takes do_syscall_64()'s fast path, which dispatches all 64 bits: ENOSYS.
 * The module puts every task on the slow path by enabling the sys_enter
 * tracepoint; for a task that would not be on it otherwise (no other entry
 * work, the tracepoint's only probe is ours, sys_exit not enabled), give
 * do_syscall_64() the whole number, as without the module. Otherwise the
 * kernel truncates it anyway, and 452's low bits get fchmodat2 as any
 * other number's get their call.
 */
long f2_x86_wide_nr(long nr)
{
	struct tracepoint_func *funcs;
	bool alone;

	if (!f2_entry_work_besides_tracepoint() &&
	    !static_key_enabled(&f2_x86_sys_exit->key)) {
		rcu_read_lock_sched_notrace();
		funcs = rcu_dereference_sched(f2_x86_sys_enter->funcs);
		alone = funcs && funcs[0].func == f2_x86_probe &&
			!funcs[1].func;
		rcu_read_unlock_sched_notrace();
		if (alone)
			return current_pt_regs()->orig_ax;
	}
	return f2_x86_serve(nr);
}
#endif

/*
 * Naming the tasks an unload waits for: stack_trace_save_tsk() is not
 * exported; resolved at load time, and without it the log gives only
 * their number.
 */
static unsigned int (*f2_x86_save_tsk)(struct task_struct *task,
				       unsigned long *store,
				       unsigned int size, unsigned int skip);

/* Whether a stack holds one of the trampoline's return addresses. */
static bool f2_x86_in_tramp(const unsigned long *entries, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (entries[i] == (unsigned long)f2_x86_tramp_body_ret ||
		    entries[i] == (unsigned long)f2_x86_tramp_serve_ret ||
		    f2_x86_is_wide_ret(entries[i]))
			return true;
	return false;
}

static void f2_x86_name_waiters(void)
{
	struct task_struct *g, *t;
	unsigned long entries[32];
	unsigned int n;

	if (!f2_x86_save_tsk)
		return;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t == current)
			continue;
		n = f2_x86_save_tsk(t, entries, ARRAY_SIZE(entries), 0);
		if (f2_x86_in_tramp(entries, n))
			pr_info("unload waits for pid %d (%s): %s\n",
				task_pid_nr(t), t->comm,
				task_is_stopped_or_traced(t) ?
				"stopped by a tracer in system call entry" :
				"in system call entry (a seccomp supervisor, or fchmodat2 itself)");
	}
	rcu_read_unlock();
}

static long f2_x86_inflight_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(f2_x86_inflight, cpu);
	return sum;
}

static unsigned long f2_x86_find_target(void)
{
	unsigned long addr, found = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(f2_x86_target_names); i++) {
		addr = f2_lookup_name(f2_x86_target_names[i]);
		if (!addr)
			continue;
		if (found) {
			pr_err("syscall_trace_enter has several copies: unsupported kernel\n");
			return 0;
		}
		found = addr;
	}
	if (!found)
		pr_err("syscall_trace_enter not found: unsupported kernel\n");
	return found;
}

/*
 * The kernel's own x86 instruction decoder, insn_decode() (5.12, and
 * Debian's 5.10 by backport; not exported: found through kallsyms, and
 * called only where IBT allows), walks the hooked code's callers one
 * instruction at a time, so that a byte that merely looks like a branch
 * inside another instruction never counts.
 */
static int (*f2_x86_insn_decode)(struct insn *insn, const void *kaddr,
				 int buf_len, enum insn_mode m);

/*
 * The target of the direct branch @insn at @addr: call or jmp rel32,
 * jmp rel8, jcc rel8 or rel32; 0 for any other instruction.
 */
static unsigned long f2_x86_branch_target(const struct insn *insn,
					  unsigned long addr)
{
	u8 op0 = insn->opcode.bytes[0], op1 = insn->opcode.bytes[1];

	if (op0 != 0xe8 && op0 != 0xe9 && op0 != 0xeb &&
	    (op0 & 0xf0) != 0x70 && (op0 != 0x0f || (op1 & 0xf0) != 0x80))
		return 0;
	return addr + insn->length + (long)insn->immediate.value;
}

/*
 * Whether the function at @from holds a direct branch to @to (a call, a
 * tail jump, a conditional tail jump; rel32 or rel8). With call depth
 * tracking (6.2+, retbleed=stuff) calls are redirected at boot to a thunk
 * in the padding just before the callee. An instruction the decoder
 * cannot read (a kprobe's int3 over another one splits it) ends the walk:
 * the branch is not found, and the load is refused.
 */
static bool f2_x86_branches_to(unsigned long from, unsigned long to)
{
	unsigned long size = f2_symbol_size(from), p, dest;
	struct insn insn;

	if (!f2_x86_insn_decode)
		return false;
	for (p = from; p < from + size; p += insn.length) {
		if (f2_x86_insn_decode(&insn, (void *)p, MAX_INSN_SIZE,
				       INSN_MODE_KERN) < 0 || !insn.length)
			return false;
		dest = f2_x86_branch_target(&insn, p);
		if (!dest)
			continue;
		if (dest == to)
			return true;
#ifdef CONFIG_CALL_THUNKS
		if (insn.opcode.bytes[0] == 0xe8 && dest < to &&
		    dest >= to - CONFIG_FUNCTION_PADDING_BYTES)
			return true;
#endif
	}
	return false;
}

/*
 * Whether @name (or a copy GCC made of it) calls @target, directly or
 * through syscall_enter_from_user_mode() or
 * syscall_enter_from_user_mode_work() (functions up to 6.7; inlined into
 * the entry points since). *@found: whether there is such a function.
 */
static bool f2_x86_reaches(const char *name, unsigned long target,
			   bool *found)
{
	static const char * const via[] = {
		"syscall_enter_from_user_mode",
		"syscall_enter_from_user_mode_work",
	};
	unsigned long entry, v;
	int i, n;

	for (n = 0; (entry = f2_lookup_variant(name, n)); n++) {
		*found = true;
		if (f2_x86_branches_to(entry, target))
			return true;
		for (i = 0; i < ARRAY_SIZE(via); i++) {
			v = f2_lookup_name(via[i]);
			if (v && f2_x86_branches_to(entry, v) &&
			    f2_x86_branches_to(v, target))
				return true;
		}
	}
	return false;
}

/*
 * The code the hook relies on, checked before it is placed: the function
 * found by name must be the one that every system call entry point calls
 * for entry work (64-bit; with IA32 emulation also int $0x80 and the
 * vDSO's fast path for 32-bit callers), directly or through the generic
 * entry code's functions. A kernel whose entry code is laid out
 * otherwise, or patched there (a kprobe's int3 over a call), is refused
 * with one line, not guessed at. What the entry points do with the
 * result (dispatch the number, skip the call on -1) is the generic entry
 * code's contract since 5.9, which compat.h requires; the tests show it
 * on every kernel of the matrix.
 */
static int f2_x86_check_entry(unsigned long target)
{
	/* each entry point, under the names it has had */
	static const char * const entries[][2] = {
		{ "do_syscall_64", NULL },
		{ "do_int80_syscall_32", "do_int80_emulation" },
		{ "do_fast_syscall_32", "__do_fast_syscall_32" },
	};
	int i, j, n = IS_ENABLED(CONFIG_IA32_EMULATION) ? 3 : 1;
	bool found;

	for (i = 0; i < n; i++) {
		found = false;
		for (j = 0; j < 2 && entries[i][j]; j++)
			if (f2_x86_reaches(entries[i][j], target, &found))
				break;
		if (j < 2 && entries[i][j])
			continue;
		if (!found)
			pr_err("%s not found: unsupported kernel\n",
			       entries[i][0]);
		else
			pr_err("%s does not call syscall_trace_enter as the entry code this module knows does (or is patched there, e.g. by a kprobe): unsupported kernel\n",
			       entries[i][0]);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * x32 system calls are served only where the kernel serves x32 at all.
 * Mainline serves them whenever CONFIG_X86_X32_ABI is set. Debian's patch
 * "x86: Make x32 syscall support conditional on a kernel parameter" adds
 * CONFIG_X86_X32_DISABLED and x32_enabled_skey, off unless booted with
 * syscall.x32=y. The key is data: without KALLSYMS_ALL it cannot be
 * found, and then x32 is taken as off (the default there), so that 452
 * from an x32 caller stays ENOSYS rather than being served where the
 * kernel serves no x32 call.
 */
static bool f2_x86_x32_enabled(void)
{
#ifdef CONFIG_X86_X32_ABI
	struct static_key *key = (void *)f2_lookup_name("x32_enabled_skey");

	if (key)
		return static_key_enabled(key);
#ifdef CONFIG_X86_X32_DISABLED
	pr_info("cannot read whether x32 is enabled (x32_enabled_skey not found): x32 callers of %d get ENOSYS\n",
		F2_NR_FCHMODAT2);
	return false;
#else
	return true;
#endif
#else
	return false;
#endif
}

int f2_arch_hook_install(void)
{
	unsigned long addr;
	int err;

	f2_x86_x32 = f2_x86_x32_enabled();
	addr = f2_lookup_name("stack_trace_save_tsk");
	if (addr && f2_callable(addr, NULL))
		f2_x86_save_tsk = (void *)addr;
	f2_x86_target = f2_x86_find_target();
	if (!f2_x86_target)
		return -ENOENT;
	addr = f2_lookup_name("insn_decode");
	if (!addr || !f2_callable(addr, "insn_decode")) {
		if (!addr)
			pr_err("the kernel's instruction decoder, insn_decode, not found: unsupported kernel\n");
		return -EOPNOTSUPP;
	}
	f2_x86_insn_decode = (void *)addr;
	err = f2_x86_check_entry(f2_check_addr(f2_x86_target));
	if (err)
		return err;

	for_each_kernel_tracepoint(f2_x86_find_tracepoints, NULL);
	if (!f2_x86_sys_enter || !f2_x86_sys_exit || !f2_x86_process_exit) {
		pr_err("sys_enter, sys_exit or sched_process_exit tracepoint not found: unsupported kernel\n");
		return -ENOENT;
	}

	err = f2_fault(2, register_die_notifier(&f2_x86_die_nb));
	if (err) {
		pr_err("cannot register a die notifier: %d\n", err);
		return err;
	}
	err = f2_fault(3, tracepoint_probe_register(f2_x86_process_exit,
						    f2_x86_exit_probe, NULL));
	if (err) {
		pr_err("cannot probe the sched_process_exit tracepoint: %d\n",
		       err);
		goto out_unregister_die;
	}

	err = f2_fault(4, tracepoint_probe_register(f2_x86_sys_enter,
						    f2_x86_probe, NULL));
	if (err) {
		pr_err("cannot probe the sys_enter tracepoint: %d\n", err);
		goto out_unregister_exit;
	}

	/*
	 * The probe must have put every task on the slow path (the
	 * tracepoint's entry work, this task's included); otherwise 452
	 * would be served for some tasks and ENOSYS for others.
	 */
	if (f2_tpwork_check_fails() || !f2_current_has_tracepoint_work()) {
		pr_err("the sys_enter probe did not give tasks the syscall tracepoint's entry work: unsupported kernel\n");
		err = -EOPNOTSUPP;
		goto out_unregister_probe;
	}

	/*
	 * Last: once the direct call is live, tasks can stop inside it (a
	 * ptrace stop, a seccomp notification) and only f2_arch_hook_remove()
	 * may take it down, waiting for them. Nothing can fail after it, so
	 * no error path has to: if it fails, no task ever entered.
	 */
	err = f2_fault(5, f2_register_ftrace_direct(&f2_x86_direct_ops,
				f2_x86_target,
				(unsigned long)f2_x86_trace_enter_tramp));
	if (err) {
		if (err == -EBUSY)
			pr_err("syscall_trace_enter is already owned by another ftrace user (direct call or IP-modify, e.g. a livepatch), or kernel.ftrace_enabled is 0: %d\n",
			       err);
		else
			pr_err("cannot attach to syscall_trace_enter (register_ftrace_direct: %d)\n",
			       err);
		goto out_unregister_probe;
	}
	return 0;

out_unregister_probe:
	tracepoint_probe_unregister(f2_x86_sys_enter, f2_x86_probe, NULL);
out_unregister_exit:
	tracepoint_probe_unregister(f2_x86_process_exit, f2_x86_exit_probe,
				    NULL);
	tracepoint_synchronize_unregister();
out_unregister_die:
	unregister_die_notifier(&f2_x86_die_nb);
	return err;
}

void f2_arch_hook_remove(void)
{
	unsigned long next;
	int err;

	/* First: if it fails, nothing is torn down and 452 keeps working. */
	if (f2_ftrace_dead())
		f2_stay_forever("syscall_trace_enter", -ENODEV);
	err = f2_unregister_ftrace_direct(&f2_x86_direct_ops, f2_x86_target,
					  (unsigned long)f2_x86_trace_enter_tramp);
	if (err)
		f2_stay_forever("syscall_trace_enter", err);
	/*
	 * ftrace may have died while patching the call site away (an ftrace
	 * bug during this very update), and that update reports no error:
	 * the site may still call the trampoline.
	 */
	if (f2_ftrace_dead())
		f2_stay_forever("syscall_trace_enter", -ENODEV);
	tracepoint_probe_unregister(f2_x86_sys_enter, f2_x86_probe, NULL);
	/* No task is left between the fentry site and the increment. */
	synchronize_rcu_tasks();
	/*
	 * Tasks still inside (sleeping in the handler, stopped by ptrace in
	 * syscall_trace_enter(), waiting on a seccomp notifier) will return
	 * into the trampoline: wait for them. Only decrements happen now, so
	 * a sum of zero cannot be a torn read of a live count.
	 */
	smp_mb(); /* the unregistration before the counters' reads */
	next = jiffies + 10 * HZ;
	while (f2_x86_inflight_sum()) {
		if (time_after(jiffies, next)) {
			pr_info("unload waits for %ld task(s) inside system call entry\n",
				f2_x86_inflight_sum());
			f2_x86_name_waiters();
			next = jiffies + 10 * HZ;
		}
		f2_unload_nap(20);
	}
	smp_mb(); /* the counters' reads before what follows */
	/* Only now: a task may exit inside the trampoline while we wait. */
	tracepoint_probe_unregister(f2_x86_process_exit, f2_x86_exit_probe,
				    NULL);
	unregister_die_notifier(&f2_x86_die_nb);
	/* ...and between the decrement and the return. */
	synchronize_rcu_tasks();
	tracepoint_synchronize_unregister();
}
