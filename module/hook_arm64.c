// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: how system call 452 reaches the module.
 *
 * invoke_syscall() calls sys_ni_syscall() (through do_ni_syscall()) for a
 * number past the table, native and AArch32 alike, after ptrace and
 * seccomp. An IP-modifying ftrace hook on sys_ni_syscall() sends the call
 * to f2_arm64_sys_fchmodat2() when the number is 452; every other system
 * call never passes here, so they pay nothing.
 *
 * The hook filters by name: available_filter_functions lists
 * sys_ni_syscall several times (overridden weak copies); hooking them all
 * is harmless. The number is read from pt_regs->syscallno, which a tracer
 * rewriting the number changes (regs[8] it does not).
 */
#include <linux/ftrace.h>
#include <linux/percpu.h>
#include <linux/delay.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/string.h>
#include "fchmodat2.h"

/*
 * Calls the hook sent to the handler. Each ends by counting itself served
 * or refused in f2_fchmodat2(), so the difference is the number of tasks
 * between the hook and the end of the handler (which may sleep): unloading
 * waits for it to be zero. This kernel may lack TASKS_RCU, so no grace
 * period covers a task asleep in the handler. One counter per call instead
 * of an increment and a decrement: this path is fchmodat2's only cost.
 */
static DEFINE_PER_CPU(unsigned long, f2_arm64_entered);

const char *f2_arch_mechanism(void)
{
	return "arm64 sys_ni_syscall ftrace hook";
}

int f2_arch_native_present(void)
{
	return f2_lookup_name("__arm64_sys_fchmodat2") != 0;
}

static long f2_arm64_sys_fchmodat2(void)
{
	struct pt_regs *regs = current_pt_regs();
	long ret;

	if (is_compat_task())
		ret = f2_fchmodat2((int)regs->regs[0],
				   compat_ptr((u32)regs->regs[1]),
				   (umode_t)regs->regs[2],
				   (unsigned int)regs->regs[3]);
	else
		ret = f2_fchmodat2((int)regs->regs[0],
				   (const char __user *)regs->regs[1],
				   (umode_t)regs->regs[2],
				   (unsigned int)regs->regs[3]);
	return ret;
}

static void notrace f2_arm64_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (current_pt_regs()->syscallno != F2_NR_FCHMODAT2 || !regs)
		return;
	this_cpu_inc(f2_arm64_entered);
	/* The saved PC: ftrace_instruction_pointer_set() is a no-op here. */
	instruction_pointer_set(regs, (unsigned long)f2_arm64_sys_fchmodat2);
}

static struct ftrace_ops f2_arm64_ops = {
	.func = f2_arm64_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * Once no call can enter any more, the entered count is final and the
 * served and refused counts only grow towards it.
 */
static unsigned long f2_arm64_inflight(void)
{
	unsigned long entered = 0, served, refused;
	int cpu;

	for_each_possible_cpu(cpu)
		entered += per_cpu(f2_arm64_entered, cpu);
	f2_syscall_stats(&served, &refused);
	return entered - served - refused;
}

int f2_arch_hook_install(void)
{
	char name[] = "sys_ni_syscall";
	int err;

	err = ftrace_set_filter(&f2_arm64_ops, name, strlen(name), 1);
	if (err) {
		pr_err("sys_ni_syscall cannot be hooked (ftrace_set_filter: %d): unsupported kernel\n",
		       err);
		return err;
	}
	err = register_ftrace_function(&f2_arm64_ops);
	if (err) {
		if (err == -EBUSY)
			pr_err("sys_ni_syscall is already owned by another ftrace user with IP-modify (e.g. a livepatch): %d\n",
			       err);
		else
			pr_err("cannot hook sys_ni_syscall (register_ftrace_function: %d)\n",
			       err);
		ftrace_free_filter(&f2_arm64_ops);
	}
	return err;
}

void f2_arch_hook_remove(void)
{
	unsigned int waited = 0;

	unregister_ftrace_function(&f2_arm64_ops);
	ftrace_free_filter(&f2_arm64_ops);
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
		msleep(20);
	}
	smp_mb(); /* the counters' reads before what follows */
	/* ...and between the decrement and the handler's return. */
	synchronize_rcu();
}
