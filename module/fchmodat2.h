/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces between the parts of the module: the system call's semantics
 * (syscall.c), symbol resolution (symbols.c), the per-architecture
 * interception mechanism (hook_*.c) and the module's lifecycle (main.c).
 */
#ifndef F2_FCHMODAT2_H
#define F2_FCHMODAT2_H

#include <linux/types.h>
#include <linux/compiler.h>

/* The system call number on x86_64, i386 and asm-generic architectures. */
#define F2_NR_FCHMODAT2 452

/* What the places hook_x86_64.c fills in the x86_64 stub hold before. */
#define F2_X86_FILL 0x7eadbeef

#ifndef __ASSEMBLY__
#include <linux/printk.h>

/* symbols.c: kernel symbols that are not exported, resolved at load time. */
int f2_symbols_init(void);
unsigned long f2_lookup_name(const char *name);
bool f2_callable(unsigned long addr, const char *name);
bool f2_ftrace_dead(void);
unsigned long f2_symbol_size(unsigned long addr);
unsigned long f2_lookup_variant(const char *name, int nth);

/* syscall.c: fchmodat2() itself, callable from any interception mechanism. */
int f2_syscall_init(void);
long f2_fchmodat2(int dfd, const char __user *filename, umode_t mode,
		  unsigned int flags);
void f2_syscall_stats(unsigned long *served, unsigned long *refused);

/*
 * Called on unload when the hook cannot be removed: ftrace refuses every
 * change once an ftrace bug has disabled it (ftrace_kill()), and then the
 * kernel keeps calling the module's code, which must never be freed.
 * Nothing has been torn down yet, so the module keeps serving 452 (the
 * hooks serve without a module reference once f2_staying is set: the
 * module is going, and try_module_get() fails). An
 * unload cannot be refused once module_exit runs, so it never completes:
 * the task running rmmod sleeps here for good (f2_sleep_forever() in
 * compat.h: no hung-task report, no load, no obstacle to suspend), and a
 * reboot removes the module. Inline, so that objtool sees the loop (no
 * noreturn annotation to agree on).
 */
extern bool f2_staying;

static inline void f2_stay_forever(const char *site, int err)
{
	/* the module is going: calls are served without a reference now */
	WRITE_ONCE(f2_staying, true);
	pr_crit("cannot remove the hook on %s (%d: ftrace is disabled, after an ftrace bug?): the module stays in memory and keeps serving %d; this rmmod never returns, reboot to remove it\n",
		site, err, F2_NR_FCHMODAT2);
	f2_sleep_forever();
}

/*
 * Test builds only (F2_FAULT_INJECT=1): f2_fault(N, call) makes install
 * step N fail with -ENOMEM instead of making the call, as the call itself
 * would have failed (fail_at=N), so that every error path of install runs.
 */
#ifdef F2_FAULT_INJECT
extern int f2_fail_at;
#define f2_fault(n, call)						\
	(f2_fail_at == (n) ?						\
	 (pr_info("injected failure at install step %d\n", (n)), -ENOMEM) : \
	 (call))
#else
#define f2_fault(n, call) (call)
#endif

/*
 * Test builds only: with fail_check=1 the load-time checks of the hooked
 * code look for calls to an address the kernel never calls (in this
 * module's data), so that a test sees them refuse a kernel they do not
 * recognise.
 */
#ifdef F2_FAULT_INJECT
extern bool f2_fail_check;
#define f2_check_addr(addr) \
	(f2_fail_check ? (unsigned long)&f2_fail_check : (addr))
#else
#define f2_check_addr(addr) (addr)
#endif

/*
 * audit.c: 452 in the audit "change attributes" class while loaded;
 * audit_lists.c, audit_compat.c: the class lists of this kernel's headers
 * (native; 32-bit: index 0 dir write, 1 change attributes, 2 read, 3
 * write, 4 signal).
 */
int f2_audit_init(void);
void f2_audit_exit(void);
const unsigned int *f2_audit_native_list(int class);
const unsigned int *f2_audit_compat_list(int index);

/*
 * Test builds only: fail_audit=1 makes audit.c refuse the class table;
 * fail_tpwork=1 makes the x86_64 hook see no tracepoint work on the
 * current task after registering its sys_enter probe.
 */
#ifdef F2_FAULT_INJECT
extern bool f2_fail_audit, f2_fail_tpwork;
#define f2_audit_check_fails() (f2_fail_audit)
#define f2_tpwork_check_fails() (f2_fail_tpwork)
#else
#define f2_audit_check_fails() false
#define f2_tpwork_check_fails() false
#endif

/* hook_<arch>.c: delivers system call 452 to f2_fchmodat2(). */
const char *f2_arch_mechanism(void);
int f2_arch_native_present(void);
int f2_arch_hook_install(void);
void f2_arch_hook_remove(void);

/* main.c: for the hooks' unload, after rmmod -f */
void f2_wait_forced_unload(void);

/* hook_x86_64.c: what the stub (hook_x86_64_entry.S) jumps to for 452 */
long f2_x86_gate(long nr);

/*
 * hook_x86_64_entry.S: the stub's template, the ends of the places
 * hook_x86_64.c fills in (each marked F2_X86_FILL), and model returns.
 */
extern const u8 f2_x86_stub_tmpl[], f2_x86_stub_tmpl_end[];
extern const u8 f2_x86_fill_current1[], f2_x86_fill_work[],
	f2_x86_fill_stack1[], f2_x86_fill_nr[], f2_x86_fill_ret1[],
	f2_x86_fill_body[], f2_x86_fill_ret2[], f2_x86_fill_alive[],
	f2_x86_fill_gate[], f2_x86_fill_ret3[];
extern const u8 f2_x86_fill_wide1[], f2_x86_fill_current2[],
	f2_x86_fill_stack2[], f2_x86_fill_wide2[];
extern const u8 f2_x86_ret_model_lo[], f2_x86_ret_model_hi[];

#endif /* !__ASSEMBLY__ */
#endif /* F2_FCHMODAT2_H */
