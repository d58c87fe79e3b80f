/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64: the code the fentry site of syscall_trace_enter() calls.
 *
 * It is never run from here: hook_x86_64.c copies it into memory that
 * outlives the module (f2_x86_stub_build()), fills in the places marked
 * below, and registers the copy as the ftrace direct call. A task that
 * sleeps inside syscall_trace_enter() (a ptrace entry stop, a seccomp
 * notification) holds a return address into that copy, never into the
 * module: unloading waits for nobody but the 452 calls themselves, which
 * hold a module reference (f2_x86_gate()).
 *
 * Fast path, for a number that cannot become 452: return at once. The
 * number dispatched is orig_ax (or -1) unless a tracer or syscall user
 * dispatch can act on it (the SYSCALL_TRACE, SYSCALL_EMU, SECCOMP and
 * SYSCALL_USER_DISPATCH work: seccomp changes a number only through a
 * tracer's PTRACE_EVENT_SECCOMP stop). Every call and return stay paired.
 *
 * Otherwise (orig_ax says 452, or such work is set) run the rest of
 * syscall_trace_enter() with a frame of ours as its caller, look at the
 * number it returns and, for 452, jump to f2_x86_gate() in the module
 * if the module is still there (a byte in the writable page after the
 * code, cleared at unload).
 *
 * Only %r11 and the flags are used before the function runs (its
 * arguments are untouched); after it, only %rdi, %r11 and the flags
 * (caller-saved: the kernel is built with -pg, which disables GCC's
 * interprocedural register allocation).
 *
 * The template has no relocations: per-CPU variables are addressed by
 * absolute %gs: displacements and branches out of it are filled in. The
 * fill-in places hold F2_X86_FILL, checked before they are written.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/unistd.h>
#include "fchmodat2.h"

	.pushsection .rodata, "a"
	.balign 8
SYM_DATA_START(f2_x86_stub_tmpl)
	/* fast path */
	movq	%gs:F2_X86_FILL, %r11		/* current */
SYM_INNER_LABEL(f2_x86_fill_current1, SYM_L_GLOBAL)
	testl	$F2_X86_FILL, F2_X86_FILL(%r11)	/* work that may change the number */
SYM_INNER_LABEL(f2_x86_fill_work, SYM_L_GLOBAL)
	jnz	.Lf2_wrap
	movq	F2_X86_FILL(%r11), %r11		/* its stack */
SYM_INNER_LABEL(f2_x86_fill_stack1, SYM_L_GLOBAL)
#ifdef F2_DO_SYSCALL_64_LONG_NR
	cmpl	$0, F2_X86_FILL(%r11)		/* orig_ax's upper half */
SYM_INNER_LABEL(f2_x86_fill_wide1, SYM_L_GLOBAL)
	jne	.Lf2_wrap
#endif
	movl	F2_X86_FILL(%r11), %r11d	/* orig_ax's lower half */
SYM_INNER_LABEL(f2_x86_fill_nr, SYM_L_GLOBAL)
	andl	$~__X32_SYSCALL_BIT, %r11d
	cmpl	$F2_NR_FCHMODAT2, %r11d
	je	.Lf2_wrap
SYM_INNER_LABEL(f2_x86_fill_ret1, SYM_L_GLOBAL)
	.byte	0xc3, 0xcc, 0xcc, 0xcc, 0xcc	/* ret, or jmp to the return thunk */

	/* the rest of syscall_trace_enter(), called from here */
.Lf2_wrap:
	addq	$8, %rsp			/* the fentry site's return address */
	pushq	%rbp				/* a frame the ORC unwinder's */
	movq	%rsp, %rbp			/* guess for generated code reads right */
	.byte	0xe8				/* call the function past fentry */
	.long	F2_X86_FILL
SYM_INNER_LABEL(f2_x86_fill_body, SYM_L_GLOBAL)
	popq	%rbp
#ifdef F2_DO_SYSCALL_64_LONG_NR
	movq	%gs:F2_X86_FILL, %r11
SYM_INNER_LABEL(f2_x86_fill_current2, SYM_L_GLOBAL)
	movq	F2_X86_FILL(%r11), %r11
SYM_INNER_LABEL(f2_x86_fill_stack2, SYM_L_GLOBAL)
	cmpl	$0, F2_X86_FILL(%r11)
SYM_INNER_LABEL(f2_x86_fill_wide2, SYM_L_GLOBAL)
	jne	.Lf2_gate
#endif
	/* %rax: the number to dispatch; only its low 32 bits count */
	movl	%eax, %r11d
	andl	$~__X32_SYSCALL_BIT, %r11d
	cmpl	$F2_NR_FCHMODAT2, %r11d
	je	.Lf2_gate
SYM_INNER_LABEL(f2_x86_fill_ret2, SYM_L_GLOBAL)
	.byte	0xc3, 0xcc, 0xcc, 0xcc, 0xcc
.Lf2_gate:
	cmpb	$0, F2_X86_FILL(%rip)		/* the module still there? */
SYM_INNER_LABEL(f2_x86_fill_alive, SYM_L_GLOBAL)
	je	.Lf2_gone
	movq	%rax, %rdi
	.byte	0xe9				/* jmp f2_x86_gate */
	.long	F2_X86_FILL
SYM_INNER_LABEL(f2_x86_fill_gate, SYM_L_GLOBAL)
.Lf2_gone:
SYM_INNER_LABEL(f2_x86_fill_ret3, SYM_L_GLOBAL)
	.byte	0xc3, 0xcc, 0xcc, 0xcc, 0xcc
SYM_INNER_LABEL(f2_x86_stub_tmpl_end, SYM_L_GLOBAL)
SYM_DATA_END(f2_x86_stub_tmpl)
	.popsection

/*
 * Returns as the kernel patched them into this module at load (a plain
 * RET, or a jump to its return thunk), one in each half of a 64-byte line
 * (the ITS mitigation gives the thunk to the lower half only): the copy's
 * returns are made the same. Read, never called (their addresses are past
 * any ENDBR: none needed there, which objtool checks only where IBT has
 * the annotation).
 */
	.text
	.balign 64
SYM_FUNC_START(f2_x86_ret_lo_fn)
SYM_INNER_LABEL(f2_x86_ret_model_lo, SYM_L_GLOBAL)
#ifdef CONFIG_X86_KERNEL_IBT
	ANNOTATE_NOENDBR
#endif
	RET
SYM_FUNC_END(f2_x86_ret_lo_fn)
	.balign 64
	.skip 32, 0xcc
SYM_FUNC_START(f2_x86_ret_hi_fn)
SYM_INNER_LABEL(f2_x86_ret_model_hi, SYM_L_GLOBAL)
#ifdef CONFIG_X86_KERNEL_IBT
	ANNOTATE_NOENDBR
#endif
	RET
SYM_FUNC_END(f2_x86_ret_hi_fn)
