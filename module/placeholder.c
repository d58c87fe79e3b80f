// SPDX-License-Identifier: GPL-2.0
/*
 * What DKMS builds for a kernel the module does not support (dkms.conf
 * passes F2_DKMS=1; Kbuild says why, in F2_PLACEHOLDER_REASON): a module
 * that never loads and says why in one line. Without it, DKMS would have
 * to fail or exclude that kernel, and Debian 12's DKMS (3.0.10) then
 * fails the installation of the kernel itself (its autoinstall exits 11
 * for any module not built, dkms-project/dkms#302, fixed in 3.0.11): an
 * upgrade to a kernel that has fchmodat2, such as Debian 12's 6.12,
 * would leave the kernel's package half-configured.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

/*
 * Never -EEXIST, not even where the kernel has fchmodat2: kmod takes it
 * for "already loaded", and modprobe would exit 0 having loaded nothing.
 */
static int __init f2_placeholder_init(void)
{
#ifdef F2_PLACEHOLDER_NATIVE
	pr_err("this kernel already implements fchmodat2: the module is not needed (DKMS built a placeholder that never loads)\n");
#else
	pr_err("%s: DKMS built a placeholder that never loads; supported: %s\n",
	       F2_PLACEHOLDER_REASON, F2_SUPPORTED);
#endif
	return -EOPNOTSUPP;
}
module_init(f2_placeholder_init);

MODULE_LICENSE("GPL");
MODULE_VERSION(F2_VERSION);
MODULE_DESCRIPTION("fchmodat2 placeholder: " F2_PLACEHOLDER_REASON);
MODULE_AUTHOR("fchmodat2-backport developers");
