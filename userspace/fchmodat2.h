/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fchmodat2.h - fchmodat2(2), system call 452, for C programs.
 *
 * Linux 6.6 added fchmodat2(), the fchmodat() that takes flags; libcs do
 * not wrap it by name (glibc >= 2.39 and musl >= 1.2.5 call it from
 * fchmodat() when flags are given). This header gives its number on every
 * architecture that has one, the AT_ flags it takes and two functions of
 * libfchmodat2 (pkg-config fchmodat2):
 *
 *   fchmodat2()        the raw system call: -1 and errno on error, ENOSYS
 *                      on a kernel that has neither fchmodat2 nor the
 *                      fchmodat2 module loaded;
 *   fchmodat2_compat() what glibc >= 2.39's fchmodat() does: the system
 *                      call, and on ENOSYS only, an emulation that needs
 *                      /proc (O_PATH, fstatat, chmod /proc/self/fd/N).
 *
 * See fchmodat2(3).
 */
#ifndef FCHMODAT2_H
#define FCHMODAT2_H

#include <fcntl.h>
#include <sys/types.h>
#include <sys/syscall.h>	/* a libc's own __NR_fchmodat2 comes first */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * include/uapi/asm-generic/unistd.h and each architecture's syscall.tbl
 * of Linux 6.6. The kernel's number wins when <sys/syscall.h> has it.
 */
#ifndef __NR_fchmodat2
#if defined(__x86_64__) && defined(__ILP32__)
#define __NR_fchmodat2		(0x40000000 | 452)	/* x32: __X32_SYSCALL_BIT */
#elif defined(__alpha__)
#define __NR_fchmodat2		562
#elif defined(__ia64__)
#define __NR_fchmodat2		1476
#elif defined(__mips__)
#if _MIPS_SIM == _MIPS_SIM_ABI32
#define __NR_fchmodat2		4452			/* o32 */
#elif _MIPS_SIM == _MIPS_SIM_ABI64
#define __NR_fchmodat2		5452			/* n64 */
#elif _MIPS_SIM == _MIPS_SIM_NABI32
#define __NR_fchmodat2		6452			/* n32 */
#endif
#elif defined(__linux__)
/*
 * x86_64, i386, arm, arm64, powerpc, s390, sparc, parisc, m68k,
 * microblaze, sh, xtensa, riscv, loongarch and the other asm-generic ones.
 */
#define __NR_fchmodat2		452
#endif
#endif /* __NR_fchmodat2 */

#if !defined(__NR_fchmodat2)
#error "fchmodat2.h: fchmodat2's system call number is unknown here"
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2		__NR_fchmodat2
#endif

#ifndef AT_FDCWD
#define AT_FDCWD		(-100)
#endif
#ifndef AT_SYMLINK_NOFOLLOW
#define AT_SYMLINK_NOFOLLOW	0x100
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH		0x1000
#endif

/*
 * A libc that one day declares fchmodat2() will do it with this very
 * prototype (the kernel's, with libc types), so both declarations agree;
 * one that makes it a macro keeps its own.
 */
#ifndef fchmodat2
int fchmodat2(int dfd, const char *path, mode_t mode, int flags);
#endif
int fchmodat2_compat(int dfd, const char *path, mode_t mode, int flags);

#ifdef __cplusplus
}
#endif

#endif /* FCHMODAT2_H */
