// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the VM, never for a real machine: makes the next task
 * named @comm that enters notify_change() oops there (a NULL pointer
 * dereference), as a task
 * whose filesystem oopses under fchmodat2 does. The task dies inside the
 * module's handler, with the inode lock held, and never returns through
 * the module's hook: unloading fchmodat2.ko must not wait for it.
 *
 * A kprobe on notify_change() whose pre-handler sends the task to
 * f2_oops_now() instead (a kprobe may change the instruction pointer and
 * skip the probed instruction), so the oops happens in the task's own
 * context, on its stack, as a filesystem's would.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *comm = "f2-oops-me";
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "the name of the task to kill in notify_change()");

static atomic_t f2_oops_armed = ATOMIC_INIT(1);
/*
 * NULL, read at run time: a plain page fault, not a BUG() (on arm64 a
 * BRK, whose NMI-like exception entry a dying task never leaves: context
 * tracking then warns on the idle task, a consequence of dying there).
 */
static int *f2_oops_null;

static noinline void f2_oops_now(void)
{
	pr_warn("f2_oops: %s (pid %d) oopses in notify_change() now\n",
		current->comm, task_pid_nr(current));
	*READ_ONCE(f2_oops_null) = 1;
}

static int f2_oops_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (strcmp(current->comm, comm) || !atomic_dec_and_test(&f2_oops_armed))
		return 0;
	instruction_pointer_set(regs, (unsigned long)f2_oops_now);
	return 1;
}

static struct kprobe f2_oops_kp = {
	.symbol_name = "notify_change",
	.pre_handler = f2_oops_pre,
};

static int __init f2_oops_init(void)
{
	int err = register_kprobe(&f2_oops_kp);

	if (err)
		pr_err("f2_oops: cannot probe notify_change: %d\n", err);
	return err;
}

static void __exit f2_oops_exit(void)
{
	unregister_kprobe(&f2_oops_kp);
}

module_init(f2_oops_init);
module_exit(f2_oops_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fchmodat2 test helper: an oops in notify_change() for one named task");
