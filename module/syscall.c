// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2(): the system call's semantics, kept line-diffable against
 * do_fchmodat() and chmod_common() of fs/open.c in Linux 6.6. Each
 * deviation is commented.
 */
#include <linux/fs.h>
#include <linux/fcntl.h>
#include <linux/namei.h>
#include <linux/security.h>
#include <linux/percpu.h>
#include "fchmodat2.h"

/*
 * For /sys/module/fchmodat2/: calls that returned 0, and the others. The
 * arm64 hook also counts on them to know when no call is in flight.
 */
static DEFINE_PER_CPU(unsigned long, f2_served);
static DEFINE_PER_CPU(unsigned long, f2_refused);

#ifdef CONFIG_SECURITY_PATH
/*
 * Not exported: without it an LSM that mediates chmod on paths (AppArmor,
 * TOMOYO) would be bypassed, so the module refuses to load without it.
 */
static int (*f2_security_path_chmod)(const struct path *path, umode_t mode);
#else
#define f2_security_path_chmod security_path_chmod
#endif

int f2_syscall_init(void)
{
#ifdef CONFIG_SECURITY_PATH
	unsigned long addr = f2_lookup_name("security_path_chmod");

	if (!addr) {
		pr_err("cannot resolve security_path_chmod: refusing to bypass the LSM\n");
		return -ENOENT;
	}
	if (!f2_callable(addr, "security_path_chmod"))
		return -EOPNOTSUPP;
	f2_security_path_chmod = (void *)addr;
#endif
	return 0;
}

/*
 * The checks notify_change() makes, in its order, before it calls into the
 * filesystem: may_setattr()'s immutable/append-only check, then the symlink
 * block of commit 5d1f903f75a8 ("attr: block mode changes of symlinks",
 * 6.6, backported to 6.1.55 and 5.10.197). Kernels without the block let
 * ext4, xfs and btrfs change a symlink's mode and only then fail with
 * EOPNOTSUPP, so the module checks before notify_change() can reach the
 * filesystem. Placed after security_path_chmod() and with may_setattr()'s
 * check first, the errors come in mainline's order.
 */
static int f2_may_chmod(struct inode *inode)
{
	if (IS_IMMUTABLE(inode) || IS_APPEND(inode))
		return -EPERM;
	if (S_ISLNK(inode->i_mode))
		return -EOPNOTSUPP;
	return 0;
}

static int f2_chmod_common(const struct path *path, umode_t mode)
{
	struct inode *inode = path->dentry->d_inode;
	struct inode *delegated_inode = NULL;
	struct iattr newattrs;
	int error;

	error = mnt_want_write(path->mnt);
	if (error)
		return error;
retry_deleg:
	inode_lock(inode);
	error = f2_security_path_chmod(path, mode);
	if (error)
		goto out_unlock;
	/* Deviation: the symlink block (see f2_may_chmod()). */
	error = f2_may_chmod(inode);
	if (error)
		goto out_unlock;
	newattrs.ia_mode = (mode & S_IALLUGO) | (inode->i_mode & ~S_IALLUGO);
	newattrs.ia_valid = ATTR_MODE | ATTR_CTIME;
	error = f2_notify_change(path, &newattrs, &delegated_inode);
out_unlock:
	inode_unlock(inode);
	if (delegated_inode) {
		error = break_deleg_wait(&delegated_inode);
		if (!error)
			goto retry_deleg;
	}
	mnt_drop_write(path->mnt);
	return error;
}

static int f2_do_fchmodat(int dfd, const char __user *filename, umode_t mode,
			  unsigned int flags)
{
	struct path path;
	int error;
	unsigned int lookup_flags;

	if (unlikely(flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
		return -EINVAL;

	lookup_flags = (flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;

retry:
	error = user_path_at(dfd, filename, lookup_flags, &path);
	if (!error) {
		error = f2_chmod_common(&path, mode);
		path_put(&path);
		if (retry_estale(error, lookup_flags)) {
			lookup_flags |= LOOKUP_REVAL;
			goto retry;
		}
	}
	return error;
}

long f2_fchmodat2(int dfd, const char __user *filename, umode_t mode,
		  unsigned int flags)
{
	int error = f2_do_fchmodat(dfd, filename, mode, flags);

	if (error)
		this_cpu_inc(f2_refused);
	else
		this_cpu_inc(f2_served);
	return error;
}

void f2_syscall_stats(unsigned long *served, unsigned long *refused)
{
	int cpu;

	*served = 0;
	*refused = 0;
	for_each_possible_cpu(cpu) {
		*served += per_cpu(f2_served, cpu);
		*refused += per_cpu(f2_refused, cpu);
	}
}
