// SPDX-License-Identifier: GPL-2.0
/*
 * nrscan: what every system call number that no system call is assigned
 * to answers, one line each: from 0 to 64 past the highest number the C
 * library's kernel headers assign (Debian 12's: 6.1), skipping the
 * assigned ones and 452, then -1, other negative numbers and numbers with
 * high bits set; on x86_64 also x32's numbers (bit 30) where the kernel
 * runs no x32 call. The guest runs it without and with the module loaded,
 * in one boot, and the two outputs must be the same: the module changes
 * 452 and nothing else (issue 22 #4). On arm64 every one of these numbers
 * passes through the module's hook on sys_ni_syscall(); on x86_64 through
 * its trampoline on syscall_trace_enter().
 *
 * Only numbers that no kernel up to the headers' version assigns are
 * called (an assigned one, called with these arguments, could do
 * anything: 6.11's uretprobe(), number 335 on x86_64, sends SIGILL); those
 * the kernel compiles out are left out with the assigned ones. The list
 * comes from the compiler's own <asm/unistd.h> (NR_LIST: a generated file
 * of __NR_ names, and NR_HEADERS_VERSION, the headers' version), and the
 * program refuses to run on a kernel newer than those headers.
 *
 * Prints "N numbers" first (to stderr), then "NUMBER: RESULT" lines.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "harness.h"			/* errno_name() */

static const long assigned[] = {
#include NR_LIST
};

#define FCHMODAT2 452L
#define X32_BIT 0x40000000L

static int is_assigned(long nr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(assigned); i++)
		if (assigned[i] == nr)
			return 1;
	return 0;
}

static unsigned long count;
static sigjmp_buf jb;

/*
 * A number past the AArch32 ARM-private range raises SIGILL, with and
 * without the module (compat_arm_syscall()): an answer like any other.
 */
static void on_sigill(int sig)
{
	siglongjmp(jb, sig);
}

static void call(long nr)
{
	long ret;

	count++;
	if (sigsetjmp(jb, 1)) {
		printf("%#lx: SIGILL\n", (unsigned long)nr);
		return;
	}
	errno = 0;
	ret = syscall(nr, 0L, 0L, 0L, 0L, 0L, 0L);
	if (ret == -1)
		printf("%#lx: -1 %s\n", (unsigned long)nr, errno_name(errno));
	else
		printf("%#lx: %ld\n", (unsigned long)nr, ret);
}

int main(void)
{
	static const long odd[] = {
		-1L, -2L, -4095L, -4096L, (long)INT_MIN, INT_MAX,
		(long)(int)(0x80000000U | FCHMODAT2),	/* 452 with bit 31 */
		0x80000000L | FCHMODAT2,
		0x20000000L | FCHMODAT2,
	};
	long nr, max = 0;
	unsigned int i;

	struct utsname u;
	unsigned int major = 0, minor = 0;

	/* NR_HEADERS_VERSION: the headers' version, from NR_LIST */
	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    (major << 16 | minor << 8) > (NR_HEADERS_VERSION & ~0xffU)) {
		fprintf(stderr, "nrscan: kernel %s is newer than the headers it was built with (%d.%d): numbers they leave free may be system calls there\n",
			u.release, NR_HEADERS_VERSION >> 16,
			(NR_HEADERS_VERSION >> 8) & 0xff);
		return 2;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	signal(SIGILL, on_sigill);
	for (i = 0; i < ARRAY_SIZE(assigned); i++)
		if (assigned[i] > max && assigned[i] < 0x10000)
			max = assigned[i];
	for (nr = 0; nr <= max + 64; nr++)
		if (nr != FCHMODAT2 && !is_assigned(nr))
			call(nr);
	for (i = 0; i < ARRAY_SIZE(odd); i++)
		call(odd[i]);
#if defined(__x86_64__) && !defined(__ILP32__)
	/* x32's numbers, where x32 is off (getpid's answers ENOSYS) */
	errno = 0;
	if (syscall(X32_BIT | 39L) == -1 && errno == ENOSYS) {
		for (nr = 0; nr <= max + 64; nr++)
			if (nr != FCHMODAT2)
				call(X32_BIT | nr);
	} else {
		printf("# x32 is on: its numbers are left out\n");
	}
#endif
	fflush(stdout);
	fprintf(stderr, "%lu numbers (0 to %ld without the %zu assigned, 452 and the odd ones)\n",
		count, max + 64, ARRAY_SIZE(assigned));
	return 0;
}
