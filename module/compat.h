/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, turned into capability flags and wrappers with
 * the newest signature. Force-included into every C file of the module by
 * Kbuild; no other file tests the kernel's version.
 */
#ifndef F2_COMPAT_H
#define F2_COMPAT_H
/*
 * Not for module/audit_compat.c, which must see the 32-bit ABI's system
 * call numbers as the only ones (Kbuild defines F2_NO_COMPAT_H for it).
 */
#ifndef F2_NO_COMPAT_H

#include <linux/kconfig.h>
#include <asm/unistd.h>

/* Kbuild passes the kernel's major and minor version: all the shims test. */
#define F2_KERNEL_AT_LEAST(major, minor) \
	(F2_KERNEL_MAJOR * 256 + F2_KERNEL_MINOR >= (major) * 256 + (minor))

#if !F2_KERNEL_AT_LEAST(5, 10)
#error "fchmodat2: unsupported kernel: this module supports Linux 5.10 to 6.5 (x86_64)"
#endif

/*
 * Linux 6.6 has fchmodat2 natively (commit 09da082b07bb "fs: Add fchmodat2()"),
 * and so do distribution kernels that backported it. The module would then
 * only shadow the native system call.
 */
#if defined(__NR_fchmodat2) && !defined(F2_EVAL)
#error "fchmodat2: this kernel already implements fchmodat2 (Linux 6.6+): the module is not needed (build with F2_EVAL=1 to compare it with the native implementation)"
#endif

#if defined(CONFIG_X86_64)
/*
 * The x86_64 mechanism: the generic entry code (x86 since 5.9, commit
 * 27d6b4d14f5c "x86/entry: Use generic syscall entry function") and
 * ftrace direct calls (5.5, commit 763e34e74bb7 "ftrace: Add
 * register_ftrace_direct()").
 */
#ifndef CONFIG_GENERIC_ENTRY
#error "fchmodat2: unsupported kernel configuration: CONFIG_GENERIC_ENTRY is required"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#error "fchmodat2: unsupported kernel configuration: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is required"
#endif
#elif defined(CONFIG_ARM64)
/*
 * The arm64 mechanism: an IP-modifying ftrace hook that sets the saved PC.
 * arm64 moved from DYNAMIC_FTRACE_WITH_REGS to WITH_ARGS in 6.2 (commit
 * 26299b3f6ba2 "ftrace: arm64: move from REGS to ARGS"), where the saved
 * pt_regs are not available: only kernels with WITH_REGS are supported.
 */
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#error "fchmodat2: unsupported kernel: arm64 needs CONFIG_DYNAMIC_FTRACE_WITH_REGS (Linux 5.10 to 6.1)"
#endif
#else
#error "fchmodat2: unsupported architecture: this module supports x86_64 and arm64"
#endif
#ifndef CONFIG_KPROBES
#error "fchmodat2: unsupported kernel configuration: CONFIG_KPROBES is required (symbol lookup)"
#endif

#ifndef __ASSEMBLY__
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/freezer.h>

/*
 * break_deleg_wait() lives in <linux/filelock.h> since 6.3 (commit
 * 5970e15dbcfe "filelock: move file locking definitions to separate header
 * file").
 */
#if F2_KERNEL_AT_LEAST(6, 3)
#include <linux/filelock.h>
#endif

/*
 * notify_change() takes the mount's idmapping since 5.12 (commit
 * 2f221d6f7b88 "attr: handle idmapped mounts"), as a struct mnt_idmap since
 * 6.3 (commit abf08576afe3 "fs: port vfs_*() helpers to struct mnt_idmap").
 */
#if F2_KERNEL_AT_LEAST(6, 3)
#define F2_HAVE_NOTIFY_CHANGE_IDMAP 1
#elif F2_KERNEL_AT_LEAST(5, 12)
#define F2_HAVE_NOTIFY_CHANGE_USERNS 1
#endif

static inline int f2_notify_change(const struct path *path,
				   struct iattr *attr,
				   struct inode **delegated_inode)
{
#if defined(F2_HAVE_NOTIFY_CHANGE_IDMAP)
	return notify_change(mnt_idmap(path->mnt), path->dentry, attr,
			     delegated_inode);
#elif defined(F2_HAVE_NOTIFY_CHANGE_USERNS)
	return notify_change(mnt_user_ns(path->mnt), path->dentry, attr,
			     delegated_inode);
#else
	return notify_change(path->dentry, attr, delegated_inode);
#endif
}

/*
 * ftrace direct calls are attached through an ftrace_ops carrying the
 * filter since 6.5 (commit 8788ca164eb4 "ftrace: Remove the legacy
 * _ftrace_direct API" and commit da8bdfbd4223 "ftrace: Rename
 * _ftrace_direct_multi APIs to _ftrace_direct APIs"); before, by address.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#if F2_KERNEL_AT_LEAST(6, 5)
#define F2_HAVE_FTRACE_DIRECT_OPS 1
#endif

static inline int f2_register_ftrace_direct(struct ftrace_ops *ops,
					    unsigned long ip,
					    unsigned long addr)
{
#ifdef F2_HAVE_FTRACE_DIRECT_OPS
	int err = ftrace_set_filter_ip(ops, ip, 0, 0);

	if (err)
		return err;
	err = register_ftrace_direct(ops, addr);
	if (err)
		ftrace_free_filter(ops);
	return err;
#else
	return register_ftrace_direct(ip, addr);
#endif
}

static inline int f2_unregister_ftrace_direct(struct ftrace_ops *ops,
					      unsigned long ip,
					      unsigned long addr)
{
#ifdef F2_HAVE_FTRACE_DIRECT_OPS
	return unregister_ftrace_direct(ops, addr, true);
#else
	return unregister_ftrace_direct(ip, addr);
#endif
}
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS */

#if defined(CONFIG_X86_64) && defined(F2_DO_SYSCALL_64_LONG_NR)
/*
 * do_syscall_64() takes the system call number as an unsigned long on
 * older kernels (5.10: "void do_syscall_64(unsigned long nr, struct
 * pt_regs *regs)"), as an int on newer ones (6.1: "(struct pt_regs *regs,
 * int nr)"); Kbuild reads which from the kernel's asm/syscall.h. With an
 * unsigned long, the fast path (no entry work) dispatches all 64 bits,
 * while on the slow path syscall_trace_enter() returns it truncated to an
 * int (syscall_get_nr()).
 */
#define F2_HAVE_WIDE_SYSCALL_NR 1
#include <linux/entry-common.h>

/*
 * Whether the current task has entry work other than the syscall
 * tracepoint's: flags since 5.11 (commit 29915524f1f0 "entry: Expose
 * helpers to migrate TIF to SYSCALL_WORK flags"), TIF flags before.
 */
static inline bool f2_entry_work_besides_tracepoint(void)
{
#ifdef SYSCALL_WORK_ENTER
	return READ_ONCE(current_thread_info()->syscall_work) &
		(SYSCALL_WORK_ENTER & ~SYSCALL_WORK_SYSCALL_TRACEPOINT);
#else
	return READ_ONCE(current_thread_info()->flags) &
		(SYSCALL_ENTER_WORK & ~_TIF_SYSCALL_TRACEPOINT);
#endif
}
#endif

#if defined(CONFIG_X86_64)
#include <linux/entry-common.h>
/*
 * The per-CPU "current" the system call entry stub reads (hook_x86_64.c):
 * a variable of its own until 6.1, a field of pcpu_hot since 6.2 (commit
 * e57ef2ed97c1 "x86: Put hot per CPU variables into a struct").
 */
#if F2_KERNEL_AT_LEAST(6, 2)
#define F2_X86_CURRENT_TASK pcpu_hot.current_task
#else
#define F2_X86_CURRENT_TASK current_task
#endif

/*
 * Executable memory for the stub: module_alloc() until 6.9, execmem_alloc()
 * since 6.10 (commit 12af2b83d0b1 "mm: introduce execmem_alloc() and
 * execmem_free()").
 */
#if F2_KERNEL_AT_LEAST(6, 10)
#define F2_HAVE_EXECMEM 1
#include <linux/execmem.h>
#endif

/*
 * Where the system call entry stub reads the task's entry work, and which
 * of it means a tracer may change the number (ptrace, seccomp, syscall
 * user dispatch): thread_info.syscall_work since 5.11 (commit
 * 29915524f1f0), thread_info.flags (TIF) before.
 */
#ifdef SYSCALL_WORK_ENTER
#define F2_X86_WORK_OFFSET offsetof(struct task_struct, thread_info.syscall_work)
#define F2_X86_NR_WORK (SYSCALL_WORK_SYSCALL_TRACE | SYSCALL_WORK_SYSCALL_EMU | \
			SYSCALL_WORK_SECCOMP | SYSCALL_WORK_SYSCALL_USER_DISPATCH)
#else
#define F2_X86_WORK_OFFSET offsetof(struct task_struct, thread_info.flags)
#define F2_X86_NR_WORK (_TIF_SYSCALL_TRACE | _TIF_SYSCALL_EMU | _TIF_SECCOMP)
#endif

/*
 * Whether the current task has the syscall tracepoint's entry work, which
 * registering a sys_enter probe sets on every task (syscall_regfunc()):
 * SYSCALL_WORK_SYSCALL_TRACEPOINT since 5.11 (commit 29915524f1f0),
 * TIF_SYSCALL_TRACEPOINT before.
 */
static inline bool f2_current_has_tracepoint_work(void)
{
#ifdef SYSCALL_WORK_ENTER
	return READ_ONCE(current_thread_info()->syscall_work) &
		SYSCALL_WORK_SYSCALL_TRACEPOINT;
#else
	return test_thread_flag(TIF_SYSCALL_TRACEPOINT);
#endif
}
#endif

/*
 * ftrace callbacks get a struct ftrace_regs since 5.11 (commit d19ad0775dcd
 * "ftrace: Have the callbacks receive a struct ftrace_regs instead of
 * pt_regs"), the struct pt_regs itself before. Both give the saved
 * registers only to an ftrace_ops with SAVE_REGS.
 */
#if F2_KERNEL_AT_LEAST(5, 11)
#define F2_HAVE_FTRACE_REGS 1
#define F2_FTRACE_REGS struct ftrace_regs

static inline struct pt_regs *f2_ftrace_get_regs(struct ftrace_regs *fregs)
{
	return ftrace_get_regs(fregs);
}
#else
#define F2_FTRACE_REGS struct pt_regs

static inline struct pt_regs *f2_ftrace_get_regs(struct pt_regs *regs)
{
	return regs;
}
#endif

/*
 * An ftrace_ops' filter, set on the one address IP, dropped: with
 * ftrace_free_filter() where the kernel exports it (6.2, and Debian's 6.1
 * by backport; F2_HAVE_FTRACE_FREE_FILTER, read by Kbuild from the
 * kernel's Module.symvers), else by removing IP, which leaves the ops the
 * static empty hash, as ftrace_free_filter() does.
 */
static inline void f2_ftrace_free_filter(struct ftrace_ops *ops,
					 unsigned long ip)
{
#ifdef F2_HAVE_FTRACE_FREE_FILTER
	ftrace_free_filter(ops);
#else
	ftrace_set_filter_ip(ops, ip, 1, 0);
#endif
}

/*
 * Sleeping for good without holding back the freezer (and suspend): since
 * 6.1 a TASK_FREEZABLE sleep (commit f5d39b020809 "freezer,sched: Rewrite
 * core freezer logic"); before, freezer_do_not_count(), which that commit
 * removed. TASK_IDLE: no hung-task report, no load.
 */
#if F2_KERNEL_AT_LEAST(6, 1)
#define F2_HAVE_TASK_FREEZABLE 1
#endif

static inline void f2_sleep_forever(void)
{
#ifdef F2_HAVE_TASK_FREEZABLE
	for (;;) {
		set_current_state(TASK_IDLE | TASK_FREEZABLE);
		schedule();
		try_to_freeze();
	}
#else
	freezer_do_not_count();
	for (;;)
		schedule_timeout_idle(MAX_SCHEDULE_TIMEOUT);
#endif
}

/*
 * One short wait of an unload for the tasks still inside, as msleep() but
 * idle (no hung-task report, no load: a wait behind a call parked for long
 * may be long) and freezable (suspend does not fail because of it). The
 * freezer freezes a task asleep in a TASK_FREEZABLE state at once; one
 * that is running when the freezing starts only gets a fake signal, which
 * a task looping in the kernel never sees: try_to_freeze() after each nap
 * (a cgroup v1 freezer, which calls freeze_task() once, otherwise waits
 * for good; seen on 6.1 with preempt=full).
 */
static inline void f2_unload_nap(unsigned int ms)
{
#ifdef F2_HAVE_TASK_FREEZABLE
	set_current_state(TASK_IDLE | TASK_FREEZABLE);
	schedule_timeout(msecs_to_jiffies(ms));
	try_to_freeze();
#else
	freezer_do_not_count();
	schedule_timeout_idle(msecs_to_jiffies(ms));
	freezer_count();
#endif
}

#endif /* !__ASSEMBLY__ */
#endif /* !F2_NO_COMPAT_H */
#endif /* F2_COMPAT_H */
