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

#ifndef __ASSEMBLY__
/* symbols.c: kernel symbols that are not exported, resolved at load time. */
int f2_symbols_init(void);
unsigned long f2_lookup_name(const char *name);
bool f2_callable(unsigned long addr, const char *name);

/* syscall.c: fchmodat2() itself, callable from any interception mechanism. */
int f2_syscall_init(void);
long f2_fchmodat2(int dfd, const char __user *filename, umode_t mode,
		  unsigned int flags);
void f2_syscall_stats(unsigned long *served, unsigned long *refused);

/* hook_<arch>.c: delivers system call 452 to f2_fchmodat2(). */
const char *f2_arch_mechanism(void);
int f2_arch_native_present(void);
int f2_arch_hook_install(void);
void f2_arch_hook_remove(void);

/* hook_x86_64_entry.S and its C half in hook_x86_64.c */
void f2_x86_trace_enter_tramp(void);
void f2_x86_tramp_body_ret(void);
void f2_x86_tramp_serve_ret(void);
long f2_x86_serve(long nr);

#endif /* !__ASSEMBLY__ */
#endif /* F2_FCHMODAT2_H */
