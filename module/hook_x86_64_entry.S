/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64: the ftrace direct-call trampoline on syscall_trace_enter().
 *
 * syscall_trace_enter() runs ptrace's entry stop and seccomp, and returns
 * the number the dispatcher will call, or -1 to skip the call. Its fentry
 * site calls this trampoline, which runs the rest of the function (its
 * arguments are untouched: only %r11 is used before), looks at the result
 * and, only for 452, hands over to f2_x86_serve(). Every system call of
 * the machine passes here, so the common path is a handful of
 * instructions: no register save, no indirect call.
 *
 * f2_x86_inflight counts tasks between the first and the last instruction
 * that may sleep here (ptrace stops and seccomp notifications inside
 * syscall_trace_enter(), the handler itself), so that unloading waits
 * for them. A task that exits in there (a seccomp kill, Syscall User
 * Dispatch's do_exit(), an oops in the handler) never comes back:
 * hook_x86_64.c takes it out of the count when it exits, finding the
 * return addresses below on its stack.
 */
#include <linux/linkage.h>
#include <asm/percpu.h>
#include <linux/objtool.h>
#include <asm/unwind_hints.h>
#include <asm/unistd.h>
#include <asm/ptrace-abi.h>
#ifdef F2_DO_SYSCALL_64_LONG_NR
#include <asm/asm-offsets.h>
#endif
#include "fchmodat2.h"

/*
 * The labels below are return addresses, compared, never called: no ENDBR
 * (objtool checks this only for IBT kernels, which have the annotation).
 */
#ifdef CONFIG_X86_KERNEL_IBT
#define F2_NOENDBR ANNOTATE_NOENDBR
#else
#define F2_NOENDBR
#endif

/*
 * Where do_syscall_64() takes the number as an unsigned long (Kbuild reads
 * it from asm/syscall.h; F2_HAVE_WIDE_SYSCALL_NR in compat.h), a number
 * with bits above the low 32 (orig_ax in the task's pt_regs, at the top of
 * its stack, cpu_tss_rw.x86_tss.sp1 on those kernels) goes to
 * f2_x86_wide_nr(), which decides what it dispatches to.
 */
	.text
SYM_FUNC_START(f2_x86_trace_enter_tramp)
	/* (%rsp): syscall_trace_enter() past its fentry site */
	incq	PER_CPU_VAR(f2_x86_inflight)
	popq	%r11
	/*
	 * The stack is now the traced function's at its entry, and stays so
	 * for the unwinder while the rest of it runs with f2_x86_tramp_body_ret
	 * below as its return address.
	 */
	UNWIND_HINT_FUNC
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Lf2_enter_body
SYM_INNER_LABEL(f2_x86_tramp_body_ret, SYM_L_GLOBAL)
	F2_NOENDBR
	UNWIND_HINT_FUNC
#ifdef F2_DO_SYSCALL_64_LONG_NR
	/* a number with bits above the low 32: rare, decided in C */
	movq	PER_CPU_VAR(cpu_tss_rw + TSS_sp1), %r11
	cmpl	$0, ORIG_RAX + 4 - PTREGS_SIZE(%r11)
	jne	.Lf2_wide
#endif
	/* %rax: the number to dispatch; only its low 32 bits count */
	movl	%eax, %r11d
	andl	$~__X32_SYSCALL_BIT, %r11d
	cmpl	$F2_NR_FCHMODAT2, %r11d
	je	.Lf2_serve
	decq	PER_CPU_VAR(f2_x86_inflight)
	RET
.Lf2_serve:
	movq	%rax, %rdi
	call	f2_x86_serve
SYM_INNER_LABEL(f2_x86_tramp_serve_ret, SYM_L_GLOBAL)
	F2_NOENDBR
	decq	PER_CPU_VAR(f2_x86_inflight)
	RET
#ifdef F2_DO_SYSCALL_64_LONG_NR
.Lf2_wide:
	movq	%rax, %rdi
	call	f2_x86_wide_nr
SYM_INNER_LABEL(f2_x86_tramp_wide_ret, SYM_L_GLOBAL)
	F2_NOENDBR
	decq	PER_CPU_VAR(f2_x86_inflight)
	RET
#endif
.Lf2_enter_body:
	/* a return, not an indirect jump: the target has no ENDBR */
	pushq	%r11
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(f2_x86_trace_enter_tramp)
