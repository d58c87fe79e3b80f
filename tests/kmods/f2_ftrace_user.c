// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the VM, never for a real machine: another ftrace user on
 * the module's hook target (syscall_trace_enter, or sys_ni_syscall on
 * arm64), with IP-modify (as a livepatch would be) or without it (as the
 * function tracer or a kprobe would be). fchmodat2.ko must refuse to load
 * next to the first and work next to the second.
 */
#include <linux/module.h>
#include <linux/ftrace.h>

/*
 * Callbacks get a struct ftrace_regs since 5.11 (commit d19ad0775dcd
 * "ftrace: Have the callbacks receive a struct ftrace_regs instead of
 * pt_regs"); Kbuild says which.
 */
#ifdef F2_CALLBACK_FTRACE_REGS
#define F2_CALLBACK_REGS struct ftrace_regs
#else
#define F2_CALLBACK_REGS struct pt_regs
#endif

static bool ipmodify = true;
module_param(ipmodify, bool, 0444);
MODULE_PARM_DESC(ipmodify, "register with FTRACE_OPS_FL_IPMODIFY");

static char *func = "syscall_trace_enter*";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the functions to hook (an ftrace filter)");

static unsigned long hits;
module_param(hits, ulong, 0444);

static void notrace f2_ftrace_user_func(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *ops,
					F2_CALLBACK_REGS *regs)
{
	hits++;
}

static struct ftrace_ops f2_ftrace_user_ops = {
	.func = f2_ftrace_user_func,
};

static int __init f2_ftrace_user_init(void)
{
	int err;

	if (ipmodify)
		f2_ftrace_user_ops.flags = FTRACE_OPS_FL_SAVE_REGS |
				   FTRACE_OPS_FL_IPMODIFY;
	err = ftrace_set_filter(&f2_ftrace_user_ops, func, strlen(func), 1);
	if (err)
		return err;
	err = register_ftrace_function(&f2_ftrace_user_ops);
	if (err)
		pr_err("f2_ftrace_user: register_ftrace_function: %d\n", err);
	return err;
}

static void __exit f2_ftrace_user_exit(void)
{
	unregister_ftrace_function(&f2_ftrace_user_ops);
}

module_init(f2_ftrace_user_init);
module_exit(f2_ftrace_user_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fchmodat2 test helper: another ftrace user on syscall_trace_enter");
