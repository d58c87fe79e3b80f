// SPDX-License-Identifier: GPL-2.0
/*
 * f2_cost: test-only module for make bench (x86_64). It puts the machine
 * in one of the states that the cost of the module's x86_64 mechanism is
 * made of, so that the benchmark can price each part on its own:
 *
 *   part=slowpath  every task takes the system call slow path (the syscall
 *                  tracepoint work flag, set as the kernel sets it for a
 *                  sys_enter probe), with no probe: syscall_trace_enter()
 *                  and syscall_exit_work() run, the tracepoints are off;
 *   part=probe     an empty probe on sys_enter: the slow path and the
 *                  tracepoint's call, which is what fchmodat2.ko's own
 *                  probe costs. fchmodat2.ko adds its direct call on
 *                  syscall_trace_enter() to that.
 *
 * Never loaded together with fchmodat2.ko or another tracer: unloading
 * part=slowpath clears the flag on every task.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <linux/string.h>

static char *part = "";
module_param(part, charp, 0444);
MODULE_PARM_DESC(part, "slowpath or probe");

static struct tracepoint *f2_cost_sys_enter;
static bool f2_cost_slowpath;

static void f2_cost_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		f2_cost_sys_enter = tp;
}

static void f2_cost_probe(void *data, struct pt_regs *regs, long id)
{
}

/*
 * Under RCU (tasklist_lock is not exported): a task forked meanwhile may
 * be missed, which the benchmark, forking nothing then, never meets. A
 * child takes its parent's flags.
 */
static void f2_cost_set_work(bool on)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
#ifdef SYSCALL_WORK_SYSCALL_TRACEPOINT
		if (on)
			set_task_syscall_work(t, SYSCALL_TRACEPOINT);
		else
			clear_task_syscall_work(t, SYSCALL_TRACEPOINT);
#else
		if (on)
			set_tsk_thread_flag(t, TIF_SYSCALL_TRACEPOINT);
		else
			clear_tsk_thread_flag(t, TIF_SYSCALL_TRACEPOINT);
#endif
	}
	rcu_read_unlock();
}

static int __init f2_cost_init(void)
{
	if (!strcmp(part, "slowpath")) {
		f2_cost_slowpath = true;
		f2_cost_set_work(true);
		return 0;
	}
	if (strcmp(part, "probe"))
		return -EINVAL;
	for_each_kernel_tracepoint(f2_cost_find, NULL);
	if (!f2_cost_sys_enter)
		return -ENOENT;
	return tracepoint_probe_register(f2_cost_sys_enter, f2_cost_probe,
					 NULL);
}

static void __exit f2_cost_exit(void)
{
	if (f2_cost_slowpath) {
		f2_cost_set_work(false);
		return;
	}
	tracepoint_probe_unregister(f2_cost_sys_enter, f2_cost_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(f2_cost_init);
module_exit(f2_cost_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test only: the parts of fchmodat2's x86_64 cost, for make bench");
