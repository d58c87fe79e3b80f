// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the VM, never for a real machine: disables ftrace for
 * good, as the kernel does itself after an ftrace bug (ftrace_bug() calls
 * ftrace_kill()). From then on every ftrace (un)registration fails, so
 * fchmodat2.ko cannot remove its hook and must not let its code be freed.
 * Its init does the deed and fails, so that nothing stays loaded.
 */
#include <linux/module.h>
#include <linux/kprobes.h>

static int __init f2_killftrace_init(void)
{
	struct kprobe kp = { .symbol_name = "ftrace_kill" };
	void (*kill)(void);
	int err;

	/* not exported: its address through a kprobe */
	err = register_kprobe(&kp);
	if (err) {
		pr_err("f2_killftrace: cannot find ftrace_kill: %d\n", err);
		return err;
	}
	kill = (void (*)(void))kp.addr;
	unregister_kprobe(&kp);
	kill();
	pr_info("f2_killftrace: ftrace disabled (ftrace_kill)\n");
	return -ECANCELED;
}

module_init(f2_killftrace_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fchmodat2 test helper: ftrace_kill(), as after an ftrace bug");
