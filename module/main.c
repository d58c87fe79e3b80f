// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifecycle: checks that this kernel needs and suits the module,
 * installs the interception mechanism, publishes its state in
 * /sys/module/fchmodat2/, and takes it all down again.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include "fchmodat2.h"

#ifdef F2_FAULT_INJECT
int f2_fail_at;
module_param_named(fail_at, f2_fail_at, int, 0444);
MODULE_PARM_DESC(fail_at, "test builds only: install step N fails (-ENOMEM)");
bool f2_fail_check;
module_param_named(fail_check, f2_fail_check, bool, 0444);
MODULE_PARM_DESC(fail_check,
		 "test builds only: the hooked code's checks look for a wrong address");
bool f2_fail_audit;
module_param_named(fail_audit, f2_fail_audit, bool, 0444);
MODULE_PARM_DESC(fail_audit,
		 "test builds only: the audit class table is not recognised");
bool f2_fail_tpwork;
module_param_named(fail_tpwork, f2_fail_tpwork, bool, 0444);
MODULE_PARM_DESC(fail_tpwork,
		 "test builds only: the sys_enter probe seems not to have put tasks on the slow path");
#endif

static bool takeover;
module_param(takeover, bool, 0444);
MODULE_PARM_DESC(takeover,
		 "on a kernel with native fchmodat2, serve 452 from the module instead (evaluation only)");

static ssize_t mechanism_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", f2_arch_mechanism());
}

static ssize_t calls_served_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	unsigned long served, refused;

	f2_syscall_stats(&served, &refused);
	return sysfs_emit(buf, "%lu\n", served);
}

static ssize_t calls_refused_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	unsigned long served, refused;

	f2_syscall_stats(&served, &refused);
	return sysfs_emit(buf, "%lu\n", refused);
}

static struct kobj_attribute f2_mechanism_attr = __ATTR_RO(mechanism);
static struct kobj_attribute f2_served_attr = __ATTR_RO(calls_served);
static struct kobj_attribute f2_refused_attr = __ATTR_RO(calls_refused);

static struct attribute *f2_attrs[] = {
	&f2_mechanism_attr.attr,
	&f2_served_attr.attr,
	&f2_refused_attr.attr,
	NULL,
};

static const struct attribute_group f2_attr_group = {
	.attrs = f2_attrs,
};

/* Set when the module can never leave (f2_stay_forever()). */
bool f2_staying;

/*
 * The 452 calls in flight hold the module's only references (the hooks
 * take one for each call they send to the module), so an ordinary rmmod
 * is refused while one runs ("Module fchmodat2 is in use"). A forced one
 * (rmmod -f, which Debian's kernels allow) runs module_exit anyway: then
 * wait for those calls, and no other task, to leave; then for the return
 * after their module_put(). Called by the hooks once no call can take a
 * new reference.
 */
void f2_wait_forced_unload(void)
{
	unsigned int waited = 0;

	if (module_refcount(THIS_MODULE) <= 0)
		return;
	pr_info("forced unload: waiting for %d reference(s): fchmodat2 calls in flight\n",
		module_refcount(THIS_MODULE));
	while (module_refcount(THIS_MODULE) > 0) {
		if (++waited % 500 == 0)
			pr_info("forced unload: still waiting for %d reference(s)\n",
				module_refcount(THIS_MODULE));
		f2_unload_nap(20);
	}
	synchronize_rcu_tasks();
}

static int __init f2_init(void)
{
	int err;

	err = f2_symbols_init();
	if (err)
		return err;

	if (f2_arch_native_present() && !takeover) {
		pr_err("this kernel already implements fchmodat2: the module is not needed (takeover=1 serves 452 from the module, for evaluation)\n");
		return -EEXIST;
	}

	err = f2_syscall_init();
	if (err)
		return err;

	/* before 452 is served: from its first call, watches see it */
	err = f2_audit_init();
	if (err)
		return err;

	err = f2_fault(1, sysfs_create_group(&THIS_MODULE->mkobj.kobj,
					   &f2_attr_group));
	if (err) {
		pr_err("cannot create /sys/module/fchmodat2 attributes: %d\n",
		       err);
		goto out_audit;
	}

	err = f2_arch_hook_install();
	if (err)
		goto out_remove_sysfs;

	pr_info("version %s loaded: system call %d served through %s%s\n",
		F2_VERSION, F2_NR_FCHMODAT2, f2_arch_mechanism(),
		takeover ? ", taking over the native fchmodat2 for evaluation" :
		"");
	return 0;

out_remove_sysfs:
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &f2_attr_group);
out_audit:
	f2_audit_exit();
	return err;
}

static void __exit f2_exit(void)
{
	f2_arch_hook_remove();
	/* after: no call is served any more */
	f2_audit_exit();
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &f2_attr_group);
	pr_info("unloaded: system call %d is %s again\n", F2_NR_FCHMODAT2,
		takeover ? "the kernel's own" : "ENOSYS");
}

module_init(f2_init);
module_exit(f2_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(F2_VERSION);
MODULE_DESCRIPTION("fchmodat2(2) system call (452) for kernels older than 6.6");
MODULE_AUTHOR("fchmodat2-backport developers");
