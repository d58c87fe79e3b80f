// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifecycle: checks that this kernel needs and suits the module,
 * installs the interception mechanism, and takes it down again.
 */
#include <linux/module.h>
#include <linux/init.h>
#include "fchmodat2.h"

static int __init f2_init(void)
{
	int err;

	err = f2_symbols_init();
	if (err)
		return err;

	if (f2_arch_native_present()) {
		pr_err("this kernel already implements fchmodat2: the module is not needed\n");
		return -EEXIST;
	}

	err = f2_syscall_init();
	if (err)
		return err;

	err = f2_arch_hook_install();
	if (err)
		return err;

	pr_info("version %s loaded: system call %d served through %s\n",
		F2_VERSION, F2_NR_FCHMODAT2, f2_arch_mechanism());
	return 0;
}

static void __exit f2_exit(void)
{
	f2_arch_hook_remove();
	pr_info("unloaded: system call %d returns ENOSYS again\n",
		F2_NR_FCHMODAT2);
}

module_init(f2_init);
module_exit(f2_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(F2_VERSION);
MODULE_DESCRIPTION("fchmodat2(2) system call (452) for kernels older than 6.6");
MODULE_AUTHOR("fchmodat2-backport developers");
