// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64: how system call 452 reaches the module.
 *
 * The syscall table ends before 452 and do_syscall_64() is noinstr, so no
 * "ni_syscall" function is called for it that could be hooked. Instead:
 *
 * 1. A probe on the sys_enter tracepoint makes the kernel set the syscall
 *    tracepoint work flag on every task, so every system call goes through
 *    syscall_trace_enter(), after ptrace and seccomp have had their say.
 * 2. An ftrace direct call on syscall_trace_enter() runs a stub
 *    (hook_x86_64_entry.S, copied into memory that outlives the module),
 *    which for 452 jumps to f2_x86_gate(): it serves the call in the
 *    task's context (preemptible, may sleep), stores the result in
 *    pt_regs->ax and returns -1: the dispatcher then skips the call and
 *    keeps ax, exactly as after a seccomp SECCOMP_RET_ERRNO.
 */
#include <linux/ftrace.h>
#include <linux/tracepoint.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/module.h>
#include <linux/vmalloc.h>
#include <asm/syscall.h>
#include <asm/insn.h>
#include "fchmodat2.h"

static struct ftrace_ops f2_x86_direct_ops;
static unsigned long f2_x86_target;
static struct tracepoint *f2_x86_sys_enter;
static struct tracepoint *f2_x86_sys_exit;
static bool f2_x86_x32;

/*
 * The copy of hook_x86_64_entry.S's template that the fentry site calls:
 * one page of code, then one writable page whose first byte says whether
 * the module is there. Allocated at load, never freed: a task asleep
 * inside syscall_trace_enter() returns into it whenever its tracer or
 * seccomp supervisor lets it go, module or no module.
 */
static u8 *f2_x86_stub;
#define F2_X86_STUB_PAGES 2
#define f2_x86_alive (f2_x86_stub + PAGE_SIZE)

/*
 * GCC emits syscall_trace_enter() as a constant-propagated clone on the
 * kernels this module knows. Exactly one of these must exist.
 */
static const char * const f2_x86_target_names[] = {
	"syscall_trace_enter.constprop.0",
	"syscall_trace_enter",
	"syscall_trace_enter.constprop.1",
	"syscall_trace_enter.isra.0",
};

const char *f2_arch_mechanism(void)
{
	return "x86_64 syscall_trace_enter direct call";
}

int f2_arch_native_present(void)
{
	return f2_lookup_name("__x64_sys_fchmodat2") != 0;
}

static void f2_x86_probe(void *data, struct pt_regs *regs, long id)
{
}

static void f2_x86_find_tracepoints(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		f2_x86_sys_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		f2_x86_sys_exit = tp;
}

/* Called from the trampoline for a number whose low bits say 452. */
static long f2_x86_serve(long nr)
{
	struct pt_regs *regs = current_pt_regs();
	u32 unr = nr;

	if (in_ia32_syscall()) {
		if (unr != F2_NR_FCHMODAT2)
			return nr;
		regs->ax = f2_fchmodat2((int)regs->bx, compat_ptr(regs->cx),
					(umode_t)regs->dx,
					(unsigned int)regs->si);
		return -1;
	}
	if (unr != F2_NR_FCHMODAT2 && !f2_x86_x32)
		return nr;
	regs->ax = f2_fchmodat2((int)regs->di,
				(const char __user *)regs->si,
				(umode_t)regs->dx, (unsigned int)regs->r10);
	return -1;
}

#ifdef F2_HAVE_WIDE_SYSCALL_NR
/*
 * Called from the trampoline for a number whose upper 32 bits are not zero
 * (orig_ax), with what syscall_trace_enter() returned: the low 32 bits,
 * sign-extended, or -1. Without the module, a task with no entry work
 * takes do_syscall_64()'s fast path, which dispatches all 64 bits: ENOSYS.
 * The module puts every task on the slow path by enabling the sys_enter
 * tracepoint; for a task that would not be on it otherwise (no other entry
 * work, the tracepoint's only probe is ours, sys_exit not enabled), give
 * do_syscall_64() the whole number, as without the module. Otherwise the
 * kernel truncates it anyway, and 452's low bits get fchmodat2 as any
 * other number's get their call.
 */
static long f2_x86_wide_nr(long nr)
{
	struct tracepoint_func *funcs;
	bool alone;

	if (!f2_entry_work_besides_tracepoint() &&
	    !static_key_enabled(&f2_x86_sys_exit->key)) {
		rcu_read_lock_sched_notrace();
		funcs = rcu_dereference_sched(f2_x86_sys_enter->funcs);
		alone = funcs && funcs[0].func == f2_x86_probe &&
			!funcs[1].func;
		rcu_read_unlock_sched_notrace();
		if (alone)
			return current_pt_regs()->orig_ax;
	}
	return f2_x86_serve(nr);
}
#endif

/*
 * Entered from the stub by a jump, in place of the return from
 * syscall_trace_enter() to its caller, for a number whose low bits say
 * 452 (or, where do_syscall_64() takes a long, whose upper bits are not
 * zero), when the stub saw the module there. Only a task holding a
 * reference to the module runs past the first lines: one that finds the
 * module unloading returns the number unchanged, and 452 is ENOSYS as
 * without the module (unless the module can never leave: f2_staying). f2_arch_hook_remove() waits for the tasks between
 * the stub's look and try_module_get(), and for those between
 * module_put() and the return (neither stretch sleeps).
 */
long f2_x86_gate(long nr)
{
	long ret;

	bool ref = try_module_get(THIS_MODULE);

	if (!ref && !READ_ONCE(f2_staying))
		return nr;
#ifdef F2_HAVE_WIDE_SYSCALL_NR
	if (upper_32_bits(current_pt_regs()->orig_ax))
		ret = f2_x86_wide_nr(nr);
	else
#endif
		ret = f2_x86_serve(nr);
	if (ref)
		module_put(THIS_MODULE);
	return ret;
}


/*
 * Executable memory that no module owns (module_alloc(); execmem_alloc()
 * since 6.10), made read-only and executable as ftrace makes its own
 * trampolines. None of these functions is exported: resolved through
 * kallsyms at load, and called only where IBT allows (f2_callable()).
 */
#ifdef F2_HAVE_EXECMEM
static void *(*f2_x86_execmem_alloc)(enum execmem_type type, size_t size);
#else
static void *(*f2_x86_module_alloc)(unsigned long size);
#endif
static int (*f2_x86_set_memory_ro)(unsigned long addr, int numpages);
static int (*f2_x86_set_memory_x)(unsigned long addr, int numpages);
static int (*f2_x86_set_memory_rw)(unsigned long addr, int numpages);
static int (*f2_x86_set_memory_nx)(unsigned long addr, int numpages);

static int f2_x86_resolve(void *fn, const char *name)
{
	unsigned long addr = f2_lookup_name(name);

	if (!addr) {
		pr_err("%s not found: unsupported kernel\n", name);
		return -EOPNOTSUPP;
	}
	if (!f2_callable(addr, name))
		return -EOPNOTSUPP;
	*(unsigned long *)fn = addr;
	return 0;
}

static int f2_x86_resolve_memory(void)
{
	int err;

#ifdef F2_HAVE_EXECMEM
	err = f2_x86_resolve(&f2_x86_execmem_alloc, "execmem_alloc");
#else
	err = f2_x86_resolve(&f2_x86_module_alloc, "module_alloc");
#endif
	err = err ?: f2_x86_resolve(&f2_x86_set_memory_ro, "set_memory_ro");
	err = err ?: f2_x86_resolve(&f2_x86_set_memory_x, "set_memory_x");
	err = err ?: f2_x86_resolve(&f2_x86_set_memory_rw, "set_memory_rw");
	return err ?: f2_x86_resolve(&f2_x86_set_memory_nx, "set_memory_nx");
}

/* The place that ends @back bytes before the label @end, in @code. */
static u8 *f2_x86_place(u8 *code, const u8 *end, int back)
{
	return code + (end - f2_x86_stub_tmpl) - back;
}

/* Fill a 32-bit place that the template marks with F2_X86_FILL. */
static bool f2_x86_fill(u8 *code, const u8 *end, int back, s64 val)
{
	u8 *p = f2_x86_place(code, end, back);
	s32 v = val;
	u32 old;

	memcpy(&old, p, sizeof(old));
	if (old != F2_X86_FILL || v != val)
		return false;
	memcpy(p, &v, sizeof(v));
	return true;
}

/* A rel32 branch whose displacement ends at @end, to @to. */
static bool f2_x86_fill_branch(u8 *code, const u8 *end, unsigned long to)
{
	return f2_x86_fill(code, end, 4,
			   (s64)(to - (unsigned long)f2_x86_place(code, end, 0)));
}

/*
 * A return, made as the kernel made this module's: RET (and INT3, against
 * straight-line speculation), or a jump to the return thunk the kernel
 * chose (retbleed, SRSO). With the ITS mitigation the kernel gives the
 * thunk only to returns in the lower half of a 64-byte line
 * (cpu_wants_rethunk_at(): address bit 5 clear): the module holds a model
 * return in each half (hook_x86_64_entry.S), and a slot follows the one in
 * its own half; were both in one half (a kernel aligning them otherwise),
 * the thunk if either has it.
 */
static const u8 *f2_x86_ret_model_for(const u8 *p)
{
	const u8 *lo = f2_x86_ret_model_lo, *hi = f2_x86_ret_model_hi;
	unsigned long half = (unsigned long)p & 0x20;

	if (((unsigned long)lo & 0x20) == half)
		return lo;
	if (((unsigned long)hi & 0x20) == half)
		return hi;
	return lo[0] == 0xe9 ? lo : hi;
}

static bool f2_x86_fill_ret(u8 *code, const u8 *slot)
{
	u8 *p = f2_x86_place(code, slot, 0);
	const u8 *model = f2_x86_ret_model_for(p);
	s64 rel;
	s32 rel32;

	if (p[0] != 0xc3)
		return false;
	if (model[0] == 0xc3)
		return true;
	if (model[0] != 0xe9)
		return false;
	memcpy(&rel32, model + 1, sizeof(rel32));
	rel = (long)model + 5 + rel32 - (long)(p + 5);
	rel32 = rel;
	if (rel32 != rel)
		return false;
	p[0] = 0xe9;
	memcpy(p + 1, &rel32, sizeof(rel32));
	return true;
}

/*
 * Before the fentry site ever called it: back to ordinary memory. The
 * allocation is not known to kmemleak (module_alloc() and execmem_alloc()
 * defer that to the module loader, VM_DEFER_KMEMLEAK): neither this nor
 * the pages kept after an unload are reported as leaks.
 */
static void f2_x86_stub_free(void)
{
	f2_x86_set_memory_nx((unsigned long)f2_x86_stub, 1);
	f2_x86_set_memory_rw((unsigned long)f2_x86_stub, 1);
	vfree(f2_x86_stub);
	f2_x86_stub = NULL;
}

/*
 * The stub, filled in for this kernel: the offsets of the task's fields,
 * the work that can change a system call's number, the function's body
 * (past its fentry site, which ftrace_location() finds, IBT's ENDBR
 * included), f2_x86_gate(). Written while the page is writable, checked
 * against what was meant, then made read-only and executable.
 */
static int f2_x86_stub_build(void)
{
	unsigned long (*ftrace_loc)(unsigned long ip);
	unsigned long size = f2_x86_stub_tmpl_end - f2_x86_stub_tmpl;
	unsigned long cur = (unsigned long)&F2_X86_CURRENT_TASK;
	long stack = offsetof(struct task_struct, stack);
	long nr = (long)&task_pt_regs(current)->orig_ax -
		(long)current->stack;
	unsigned long site, work;
	u8 *code;
	bool ok;
	int err;

	err = f2_x86_resolve_memory();
	err = err ?: f2_x86_resolve(&ftrace_loc, "ftrace_location");
	if (err)
		return err;
	BUILD_BUG_ON(PAGE_SIZE < 256);
	site = ftrace_loc(f2_x86_target);
	if (!site) {
		pr_err("syscall_trace_enter has no ftrace call site: unsupported kernel\n");
		return -EOPNOTSUPP;
	}
#ifdef X86_FEATURE_CALL_DEPTH
	/*
	 * Call depth tracking (retbleed=stuff, 6.2+) counts every call and
	 * return; the stub's would not be counted.
	 */
	if (cpu_feature_enabled(X86_FEATURE_CALL_DEPTH)) {
		pr_err("call depth tracking (retbleed=stuff) is on: the system call entry stub does not account for it: unsupported configuration\n");
		return -EOPNOTSUPP;
	}
#endif
	work = F2_X86_WORK_OFFSET;
	BUILD_BUG_ON(F2_X86_NR_WORK > U32_MAX);

#ifdef F2_HAVE_EXECMEM
	code = f2_x86_execmem_alloc(EXECMEM_FTRACE,
				    F2_X86_STUB_PAGES * PAGE_SIZE);
#else
	code = f2_x86_module_alloc(F2_X86_STUB_PAGES * PAGE_SIZE);
#endif
	if (!code)
		return -ENOMEM;
	memset(code, 0xcc, PAGE_SIZE);
	memcpy(code, f2_x86_stub_tmpl, size);
	code[PAGE_SIZE] = 1;	/* alive */
	ok = f2_x86_fill(code, f2_x86_fill_current1, 4, cur) &&
		f2_x86_fill(code, f2_x86_fill_work, 8, work) &&
		f2_x86_fill(code, f2_x86_fill_work, 4, F2_X86_NR_WORK) &&
		f2_x86_fill(code, f2_x86_fill_stack1, 4, stack) &&
		f2_x86_fill(code, f2_x86_fill_nr, 4, nr) &&
		f2_x86_fill_ret(code, f2_x86_fill_ret1) &&
		f2_x86_fill_branch(code, f2_x86_fill_body,
				   site + MCOUNT_INSN_SIZE) &&
		f2_x86_fill_ret(code, f2_x86_fill_ret2) &&
		f2_x86_fill(code, f2_x86_fill_alive, 5,
			    (long)(code + PAGE_SIZE -
				   f2_x86_place(code, f2_x86_fill_alive, 0))) &&
		f2_x86_fill_branch(code, f2_x86_fill_gate,
				   (unsigned long)f2_x86_gate) &&
		f2_x86_fill_ret(code, f2_x86_fill_ret3);
#ifdef F2_HAVE_WIDE_SYSCALL_NR
	ok = ok && f2_x86_fill(code, f2_x86_fill_wide1, 5, nr + 4) &&
		f2_x86_fill(code, f2_x86_fill_current2, 4, cur) &&
		f2_x86_fill(code, f2_x86_fill_stack2, 4, stack) &&
		f2_x86_fill(code, f2_x86_fill_wide2, 5, nr + 4);
#endif
	if (!ok) {
		pr_err("cannot fill in the system call entry stub (a place not where expected): unsupported kernel\n");
		vfree(code);
		return -EOPNOTSUPP;
	}
	f2_x86_stub = code;
	/* as ftrace makes its trampolines; either can fail (-ENOMEM) */
	err = f2_x86_set_memory_ro((unsigned long)code, 1) ?:
		f2_x86_set_memory_x((unsigned long)code, 1);
	if (err) {
		pr_err("cannot make the system call entry stub read-only and executable: %d\n",
		       err);
		f2_x86_stub_free();
	}
	return err;
}


static unsigned long f2_x86_find_target(void)
{
	unsigned long addr, found = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(f2_x86_target_names); i++) {
		addr = f2_lookup_name(f2_x86_target_names[i]);
		if (!addr)
			continue;
		if (found) {
			pr_err("syscall_trace_enter has several copies: unsupported kernel\n");
			return 0;
		}
		found = addr;
	}
	if (!found)
		pr_err("syscall_trace_enter not found: unsupported kernel\n");
	return found;
}

/*
 * The kernel's own x86 instruction decoder, insn_decode() (5.12, and
 * Debian's 5.10 by backport; not exported: found through kallsyms, and
 * called only where IBT allows), walks the hooked code's callers one
 * instruction at a time, so that a byte that merely looks like a branch
 * inside another instruction never counts.
 */
static int (*f2_x86_insn_decode)(struct insn *insn, const void *kaddr,
				 int buf_len, enum insn_mode m);

/*
 * The target of the direct branch @insn at @addr: call or jmp rel32,
 * jmp rel8, jcc rel8 or rel32; 0 for any other instruction.
 */
static unsigned long f2_x86_branch_target(const struct insn *insn,
					  unsigned long addr)
{
	u8 op0 = insn->opcode.bytes[0], op1 = insn->opcode.bytes[1];

	if (op0 != 0xe8 && op0 != 0xe9 && op0 != 0xeb &&
	    (op0 & 0xf0) != 0x70 && (op0 != 0x0f || (op1 & 0xf0) != 0x80))
		return 0;
	return addr + insn->length + (long)insn->immediate.value;
}

/*
 * Whether the function at @from holds a direct branch to @to (a call, a
 * tail jump, a conditional tail jump; rel32 or rel8). With call depth
 * tracking (6.2+, retbleed=stuff) calls are redirected at boot to a thunk
 * in the padding just before the callee. An instruction the decoder
 * cannot read (a kprobe's int3 over another one splits it) ends the walk:
 * the branch is not found, and the load is refused.
 */
static bool f2_x86_branches_to(unsigned long from, unsigned long to)
{
	unsigned long size = f2_symbol_size(from), p, dest;
	struct insn insn;

	if (!f2_x86_insn_decode)
		return false;
	for (p = from; p < from + size; p += insn.length) {
		if (f2_x86_insn_decode(&insn, (void *)p, MAX_INSN_SIZE,
				       INSN_MODE_KERN) < 0 || !insn.length)
			return false;
		dest = f2_x86_branch_target(&insn, p);
		if (!dest)
			continue;
		if (dest == to)
			return true;
#ifdef CONFIG_CALL_THUNKS
		if (insn.opcode.bytes[0] == 0xe8 && dest < to &&
		    dest >= to - CONFIG_FUNCTION_PADDING_BYTES)
			return true;
#endif
	}
	return false;
}

/*
 * Whether @name (or a copy GCC made of it) calls @target, directly or
 * through syscall_enter_from_user_mode() or
 * syscall_enter_from_user_mode_work() (functions up to 6.7; inlined into
 * the entry points since). *@found: whether there is such a function.
 */
static bool f2_x86_reaches(const char *name, unsigned long target,
			   bool *found)
{
	static const char * const via[] = {
		"syscall_enter_from_user_mode",
		"syscall_enter_from_user_mode_work",
	};
	unsigned long entry, v;
	int i, n;

	for (n = 0; (entry = f2_lookup_variant(name, n)); n++) {
		*found = true;
		if (f2_x86_branches_to(entry, target))
			return true;
		for (i = 0; i < ARRAY_SIZE(via); i++) {
			v = f2_lookup_name(via[i]);
			if (v && f2_x86_branches_to(entry, v) &&
			    f2_x86_branches_to(v, target))
				return true;
		}
	}
	return false;
}

/*
 * The code the hook relies on, checked before it is placed: the function
 * found by name must be the one that every system call entry point calls
 * for entry work (64-bit; with IA32 emulation also int $0x80 and the
 * vDSO's fast path for 32-bit callers), directly or through the generic
 * entry code's functions. A kernel whose entry code is laid out
 * otherwise, or patched there (a kprobe's int3 over a call), is refused
 * with one line, not guessed at. What the entry points do with the
 * result (dispatch the number, skip the call on -1) is the generic entry
 * code's contract since 5.9, which compat.h requires; the tests show it
 * on every kernel of the matrix.
 */
static int f2_x86_check_entry(unsigned long target)
{
	/* each entry point, under the names it has had */
	static const char * const entries[][2] = {
		{ "do_syscall_64", NULL },
		{ "do_int80_syscall_32", "do_int80_emulation" },
		{ "do_fast_syscall_32", "__do_fast_syscall_32" },
	};
	int i, j, n = IS_ENABLED(CONFIG_IA32_EMULATION) ? 3 : 1;
	bool found;

	for (i = 0; i < n; i++) {
		found = false;
		for (j = 0; j < 2 && entries[i][j]; j++)
			if (f2_x86_reaches(entries[i][j], target, &found))
				break;
		if (j < 2 && entries[i][j])
			continue;
		if (!found)
			pr_err("%s not found: unsupported kernel\n",
			       entries[i][0]);
		else
			pr_err("%s does not call syscall_trace_enter as the entry code this module knows does (or is patched there, e.g. by a kprobe): unsupported kernel\n",
			       entries[i][0]);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * x32 system calls are served only where the kernel serves x32 at all.
 * Mainline serves them whenever CONFIG_X86_X32_ABI is set. Debian's patch
 * "x86: Make x32 syscall support conditional on a kernel parameter" adds
 * CONFIG_X86_X32_DISABLED and x32_enabled_skey, off unless booted with
 * syscall.x32=y. The key is data: without KALLSYMS_ALL it cannot be
 * found, and then x32 is taken as off (the default there), so that 452
 * from an x32 caller stays ENOSYS rather than being served where the
 * kernel serves no x32 call.
 */
static bool f2_x86_x32_enabled(void)
{
#ifdef CONFIG_X86_X32_ABI
	struct static_key *key = (void *)f2_lookup_name("x32_enabled_skey");

	if (key)
		return static_key_enabled(key);
#ifdef CONFIG_X86_X32_DISABLED
	pr_info("cannot read whether x32 is enabled (x32_enabled_skey not found): x32 callers of %d get ENOSYS\n",
		F2_NR_FCHMODAT2);
	return false;
#else
	return true;
#endif
#else
	return false;
#endif
}

int f2_arch_hook_install(void)
{
	unsigned long addr;
	int err;

	f2_x86_x32 = f2_x86_x32_enabled();
	f2_x86_target = f2_x86_find_target();
	if (!f2_x86_target)
		return -ENOENT;
	addr = f2_lookup_name("insn_decode");
	if (!addr || !f2_callable(addr, "insn_decode")) {
		if (!addr)
			pr_err("the kernel's instruction decoder, insn_decode, not found: unsupported kernel\n");
		return -EOPNOTSUPP;
	}
	f2_x86_insn_decode = (void *)addr;
	err = f2_x86_check_entry(f2_check_addr(f2_x86_target));
	if (err)
		return err;

	for_each_kernel_tracepoint(f2_x86_find_tracepoints, NULL);
	if (!f2_x86_sys_enter || !f2_x86_sys_exit) {
		pr_err("sys_enter or sys_exit tracepoint not found: unsupported kernel\n");
		return -ENOENT;
	}

	err = f2_fault(2, f2_x86_stub_build());
	if (err)
		return err;

	err = f2_fault(3, tracepoint_probe_register(f2_x86_sys_enter,
						    f2_x86_probe, NULL));
	if (err) {
		pr_err("cannot probe the sys_enter tracepoint: %d\n", err);
		goto out_free_stub;
	}

	/*
	 * The probe must have put every task on the slow path (the
	 * tracepoint's entry work, this task's included); otherwise 452
	 * would be served for some tasks and ENOSYS for others.
	 */
	if (f2_tpwork_check_fails() || !f2_current_has_tracepoint_work()) {
		pr_err("the sys_enter probe did not give tasks the syscall tracepoint's entry work: unsupported kernel\n");
		err = -EOPNOTSUPP;
		goto out_unregister_probe;
	}

	/*
	 * Last: once the direct call is live, tasks can hold return
	 * addresses into the stub, which is then never freed. Nothing can
	 * fail after it; if it fails, no task entered the stub (unless an
	 * ftrace bug struck during the update: see out_free_stub).
	 */
	err = f2_fault(4, f2_register_ftrace_direct(&f2_x86_direct_ops,
				f2_x86_target, (unsigned long)f2_x86_stub));
	if (err) {
		if (err == -EBUSY)
			pr_err("syscall_trace_enter is already owned by another ftrace user (direct call or IP-modify, e.g. a livepatch), or kernel.ftrace_enabled is 0: %d\n",
			       err);
		else
			pr_err("cannot attach to syscall_trace_enter (register_ftrace_direct: %d)\n",
			       err);
		goto out_unregister_probe;
	}
	return 0;

out_unregister_probe:
	tracepoint_probe_unregister(f2_x86_sys_enter, f2_x86_probe, NULL);
	tracepoint_synchronize_unregister();
out_free_stub:
	/*
	 * An ftrace bug during the registration may have left the call site
	 * calling the stub: then keep it, without the module.
	 */
	if (f2_ftrace_dead()) {
		WRITE_ONCE(*f2_x86_alive, 0);
		synchronize_rcu_tasks();
		return err;
	}
	f2_x86_stub_free();
	return err;
}

/*
 * Unloading waits for no task but those inside fchmodat2 itself, and
 * there are none unless the unload was forced (rmmod -f): each holds a
 * module reference, so an ordinary rmmod is refused while one runs. A
 * task asleep inside syscall_trace_enter() (a tracer's entry stop, a
 * seccomp notification, PTRACE_SYSEMU) returns into the stub, which
 * outlives the module and, once the alive byte is clear, gives back the
 * number unchanged.
 */
void f2_arch_hook_remove(void)
{
	int err;

	/* First: if it fails, nothing is torn down and 452 keeps working. */
	if (f2_ftrace_dead())
		f2_stay_forever("syscall_trace_enter", -ENODEV);
	err = f2_unregister_ftrace_direct(&f2_x86_direct_ops, f2_x86_target,
					  (unsigned long)f2_x86_stub);
	if (err)
		f2_stay_forever("syscall_trace_enter", err);
	/*
	 * ftrace may have died while patching the call site away (an ftrace
	 * bug during this very update), and that update reports no error:
	 * the site may still call the stub.
	 */
	if (f2_ftrace_dead())
		f2_stay_forever("syscall_trace_enter", -ENODEV);
	tracepoint_probe_unregister(f2_x86_sys_enter, f2_x86_probe, NULL);
	WRITE_ONCE(*f2_x86_alive, 0);
	/*
	 * A task that saw the byte set has taken its reference now, or
	 * failed to and left: between the look and try_module_get() nothing
	 * sleeps, and Tasks RCU (synchronize_rcu() on kernels that cannot
	 * preempt) waits until every task that was running has slept or
	 * gone back to user space.
	 */
	synchronize_rcu_tasks();
	f2_wait_forced_unload();
	tracepoint_synchronize_unregister();
}
