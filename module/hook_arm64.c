// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: how system call 452 reaches the module.
 *
 * invoke_syscall() calls sys_ni_syscall() (through do_ni_syscall()) for a
 * number past the table, native and AArch32 alike, after ptrace and
 * seccomp. An IP-modifying ftrace hook on sys_ni_syscall() sends the call
 * to f2_fchmodat2() when the number is 452; every other system
 * call never passes here, so they pay nothing.
 *
 * The hook is set on sys_ni_syscall()'s address alone.
 * available_filter_functions lists sys_ni_syscall several times: the
 * other entries are the bodies of weak COND_SYSCALL() stubs that a real
 * system call overrode, which kallsyms no longer names and nothing calls.
 * Hooking them too would cost nothing at run time but a bigger filter
 * hash, which ftrace searches on every call that does come here. The
 * number is read from pt_regs->syscallno, which a tracer rewriting the
 * number changes (regs[8] it does not).
 */
#include <linux/ftrace.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>
#include <linux/stacktrace.h>
#include <linux/module.h>
#include <linux/bitops.h>
#include <asm/insn.h>
#include "fchmodat2.h"

/*
 * Calls the hook sent to the handler. Each ends by counting itself served
 * or refused in f2_fchmodat2(), so the difference is the number of tasks
 * between the hook and the end of the handler (which may sleep): unloading
 * waits for it to be zero. No RCU flavour would wait for a task asleep in
 * the handler: even for Tasks RCU a voluntary sleep is a quiescent state.
 * One counter per call instead of an increment and a decrement: this path
 * is fchmodat2's only cost.
 */
static DEFINE_PER_CPU(unsigned long, f2_arm64_entered);
/* Tasks that died inside the handler (see f2_arm64_exit_probe()). */
static DEFINE_PER_CPU(unsigned long, f2_arm64_exited);
static struct tracepoint *f2_arm64_process_exit;

const char *f2_arch_mechanism(void)
{
	return "arm64 sys_ni_syscall ftrace hook";
}

int f2_arch_native_present(void)
{
	return f2_lookup_name("__arm64_sys_fchmodat2") != 0;
}

/*
 * sys_ni_syscall() takes no arguments: the hook gives f2_fchmodat2() the
 * ones the task entered with (as a tracer may have rewritten them), and
 * returns into it instead. ftrace restores x0-x8 and the PC from the saved
 * registers, so the handler runs with its own arguments and returns to
 * do_ni_syscall() as sys_ni_syscall() would have. No wrapper function:
 * this path is fchmodat2's only cost.
 */
static void notrace f2_arm64_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    F2_FTRACE_REGS *fregs)
{
	struct pt_regs *regs = f2_ftrace_get_regs(fregs);
	const struct pt_regs *user = current_pt_regs();

	if (user->syscallno != F2_NR_FCHMODAT2 || !regs)
		return;
	/*
	 * Callbacks run with preemption off: in the ftrace list function
	 * (6.1) or in ftrace_ops_assist_func() (5.10, for an ops without
	 * FTRACE_OPS_FL_RECURSION_SAFE).
	 */
	(*this_cpu_ptr(&f2_arm64_entered))++;
	regs->regs[0] = (int)user->regs[0];
	if (is_compat_task())
		regs->regs[1] = (unsigned long)compat_ptr((u32)user->regs[1]);
	else
		regs->regs[1] = user->regs[1];
	regs->regs[2] = (umode_t)user->regs[2];
	regs->regs[3] = (unsigned int)user->regs[3];
	/* The saved PC: ftrace_instruction_pointer_set() is a no-op here. */
	instruction_pointer_set(regs, (unsigned long)f2_fchmodat2);
}

/*
 * PERMANENT: while the hook is registered, "sysctl kernel.ftrace_enabled=0"
 * is refused (EBUSY) instead of silently turning 452 back into ENOSYS.
 */
static struct ftrace_ops f2_arm64_ops = {
	.func = f2_arm64_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_PERMANENT,
};

/*
 * A task can die inside the handler and never count itself served or
 * refused: an oops in a filesystem under notify_change() ends it there.
 * Count it as it exits, when its own stack shows the handler: its system
 * call is 452 (the handler runs for no other, and nothing rewrites the
 * number while the task is inside it), and past the frames of this probe
 * and of the kernel's exit path the stack holds a return address into
 * this module's text. Only exits during a 452 call pay for the unwind.
 */
static void f2_arm64_exit_probe(void *data, struct task_struct *p)
{
	unsigned long entries[32];
	unsigned int n, i = 0;

	if (p != current || current_pt_regs()->syscallno != F2_NR_FCHMODAT2)
		return;
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/* this probe's own frames */
	while (i < n && within_module_core(entries[i], THIS_MODULE))
		i++;
	for (; i < n; i++) {
		if (within_module_core(entries[i], THIS_MODULE)) {
			this_cpu_inc(f2_arm64_exited);
			return;
		}
	}
}

static void f2_arm64_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		f2_arm64_process_exit = tp;
}

/*
 * Once no call can enter any more, the entered count is final and the
 * served, refused and exited counts only grow towards it.
 */
static unsigned long f2_arm64_inflight(void)
{
	unsigned long entered = 0, exited = 0, served, refused;
	int cpu;

	for_each_possible_cpu(cpu) {
		entered += per_cpu(f2_arm64_entered, cpu);
		exited += per_cpu(f2_arm64_exited, cpu);
	}
	f2_syscall_stats(&served, &refused);
	return entered - served - refused - exited;
}

/*
 * Hook sys_ni_syscall()'s ftrace call site, by its exact address: given a
 * function's own address, ftrace searches the whole extent kallsyms gives
 * the symbol, which here runs on over the nameless stubs that follow it,
 * and may take one of theirs. The call site is the function's second
 * instruction (its third after a BTI landing pad); ftrace refuses any
 * other address inside a function with -EINVAL.
 */
static unsigned long f2_arm64_ip;

static int f2_arm64_set_filter(unsigned long addr)
{
	int i, err = -EINVAL;

	for (i = 1; i <= 2 && err == -EINVAL; i++) {
		f2_arm64_ip = addr + i * AARCH64_INSN_SIZE;
		err = ftrace_set_filter_ip(&f2_arm64_ops, f2_arm64_ip, 0, 0);
	}
	return err;
}

/*
 * The target of the direct branch @insn at @pc: B, BL (imm26), B.cond,
 * CBZ, CBNZ (imm19), TBZ, TBNZ (imm14); 0 for any other instruction.
 * Every arm64 instruction is one aligned word: no decoding can go astray.
 */
static unsigned long f2_arm64_branch_target(u32 insn, unsigned long pc)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return pc + (long)sign_extend32((insn & 0x03ffffff) << 2, 27);
	if (aarch64_insn_is_bcond(insn) || aarch64_insn_is_cbz(insn) ||
	    aarch64_insn_is_cbnz(insn))
		return pc + (long)sign_extend32(((insn >> 5) & 0x7ffff) << 2,
						20);
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return pc + (long)sign_extend32(((insn >> 5) & 0x3fff) << 2,
						15);
	return 0;
}

/* Whether the function at @from holds a direct branch to @to. */
static bool f2_arm64_branches_to(unsigned long from, unsigned long to)
{
	unsigned long size = f2_symbol_size(from), p;
	u32 insn;

	for (p = from; p + AARCH64_INSN_SIZE <= from + size;
	     p += AARCH64_INSN_SIZE) {
		insn = le32_to_cpu(*(__le32 *)p);
		if (f2_arm64_branch_target(insn, p) == to)
			return true;
	}
	return false;
}

/*
 * The code the hook relies on, checked before it is placed: the system
 * call dispatcher, invoke_syscall() (or what GCC inlined it into:
 * el0_svc_common() and its callers; do_ni_syscall() where it stayed a
 * function), branches to sys_ni_syscall(). A kernel laid out otherwise,
 * or patched there (a kprobe's BRK over the call), is refused with one
 * line, not guessed at.
 */
static int f2_arm64_check_dispatch(unsigned long ni)
{
	static const char * const names[] = {
		"invoke_syscall", "el0_svc_common", "do_el0_svc",
		"do_el0_svc_compat", "do_ni_syscall",
	};
	unsigned long addr;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		for (n = 0; (addr = f2_lookup_variant(names[i], n)); n++)
			if (f2_arm64_branches_to(addr, ni))
				return 0;
	pr_err("invoke_syscall (or what it is inlined into) does not branch to sys_ni_syscall, or is patched there (e.g. by a kprobe): unsupported kernel\n");
	return -EOPNOTSUPP;
}

int f2_arch_hook_install(void)
{
	unsigned long addr = f2_lookup_name("sys_ni_syscall");
	int err;

	if (!addr) {
		pr_err("sys_ni_syscall not found: unsupported kernel\n");
		return -ENOENT;
	}
	err = f2_arm64_check_dispatch(f2_check_addr(addr));
	if (err)
		return err;
	for_each_kernel_tracepoint(f2_arm64_find_tracepoint, NULL);
	if (!f2_arm64_process_exit) {
		pr_err("sched_process_exit tracepoint not found: unsupported kernel\n");
		return -ENOENT;
	}
	err = f2_fault(2, f2_arm64_set_filter(addr));
	if (err) {
		pr_err("sys_ni_syscall has no ftrace call site where expected (ftrace_set_filter_ip: %d): unsupported kernel\n",
		       err);
		return err;
	}
	/* Before the hook: no task may die inside uncounted. */
	err = f2_fault(3, tracepoint_probe_register(f2_arm64_process_exit,
						    f2_arm64_exit_probe, NULL));
	if (err) {
		pr_err("cannot probe the sched_process_exit tracepoint: %d\n",
		       err);
		goto out_free_filter;
	}
	/* Last: nothing can fail once tasks can enter the handler. */
	err = f2_fault(4, register_ftrace_function(&f2_arm64_ops));
	if (err) {
		if (err == -EBUSY)
			pr_err("sys_ni_syscall is already owned by another ftrace user with IP-modify (e.g. a livepatch), or kernel.ftrace_enabled is 0: %d\n",
			       err);
		else
			pr_err("cannot hook sys_ni_syscall (register_ftrace_function: %d)\n",
			       err);
		tracepoint_probe_unregister(f2_arm64_process_exit,
					    f2_arm64_exit_probe, NULL);
		tracepoint_synchronize_unregister();
		goto out_free_filter;
	}
	return 0;

out_free_filter:
	f2_ftrace_free_filter(&f2_arm64_ops, f2_arm64_ip);
	return err;
}

void f2_arch_hook_remove(void)
{
	unsigned int waited = 0;
	int err;

	if (f2_ftrace_dead())
		f2_stay_forever("sys_ni_syscall", -ENODEV);
	err = unregister_ftrace_function(&f2_arm64_ops);
	if (err)
		f2_stay_forever("sys_ni_syscall", err);
	f2_ftrace_free_filter(&f2_arm64_ops, f2_arm64_ip);
	/*
	 * No task is left in the ftrace callback or about to be redirected:
	 * unregister_ftrace_function() has waited for that. Tasks already
	 * redirected run the handler, which may sleep: wait for them.
	 */
	smp_mb(); /* the unregistration before the counters' reads */
	while (f2_arm64_inflight()) {
		if (++waited % 500 == 0)
			pr_info("unload waits for %lu task(s) inside fchmodat2\n",
				f2_arm64_inflight());
		f2_unload_nap(20);
	}
	smp_mb(); /* the counters' reads before what follows */
	/*
	 * ...and for those between their count and the handler's return: on
	 * a preemptible kernel (TASKS_RCU) until each has scheduled
	 * voluntarily or gone back to user space; otherwise this is
	 * synchronize_rcu(), until every CPU has scheduled.
	 */
	synchronize_rcu_tasks();
	/* Only now: a task may die inside the handler while we wait. */
	tracepoint_probe_unregister(f2_arm64_process_exit, f2_arm64_exit_probe,
				    NULL);
	tracepoint_synchronize_unregister();
}
