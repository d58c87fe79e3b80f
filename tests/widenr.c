// SPDX-License-Identifier: GPL-2.0
/*
 * widenr [ptrace]: what system call numbers wider than 32 bits do, one line
 * each. On 5.10 do_syscall_64() takes the number as an unsigned long: with
 * no entry work (the fast path) all 64 bits are dispatched, so they give
 * ENOSYS; on the slow path (ptrace, seccomp, audit, a syscall tracepoint)
 * the number is truncated to an int, so 0x100000027 is getpid. Since 5.12
 * the number is an int on both paths. The module must not change what a
 * task gets: the guest compares this program's output without and with the
 * module loaded, plain and under ptrace (the "ptrace" argument: a child
 * makes the calls, stopped at every entry and exit by PTRACE_SYSCALL).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "harness.h"			/* errno_name() */

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

static const unsigned long numbers[] = {
	39,				/* getpid: the control */
	0x100000027UL,			/* getpid with bit 32 */
	0xffffffff00000027UL,		/* getpid with the upper half set */
	__NR_fchmodat,			/* the kernel's own chmod: 452's answer */
	__NR_fchmodat2,			/* 452: what its wide twin must get */
	0x100000000UL | __NR_fchmodat2,	/* 452 with bit 32 */
	0x140000000UL | __NR_fchmodat2,	/* x32's 452 with bit 32 */
	0x100000000UL | 1000,		/* no such call, with bit 32 */
};

static void calls(void)
{
	static const char path[] = "/tmp/widenr.file";
	unsigned int i;
	struct stat st;
	long ret;

	close(open(path, O_CREAT | O_WRONLY, 0600));
	for (i = 0; i < ARRAY_SIZE(numbers); i++) {
		chmod(path, 0600);
		errno = 0;
		ret = syscall(numbers[i], AT_FDCWD, path, 0644, 0);
		stat(path, &st);
		if (ret == getpid())
			printf("%#lx: the caller's pid", numbers[i]);
		else if (ret < 0)
			printf("%#lx: -1 %s", numbers[i], errno_name(errno));
		else
			printf("%#lx: %ld", numbers[i], ret);
		printf(", mode %04o\n", st.st_mode & 07777);
	}
	fflush(stdout);
	unlink(path);
}

int main(int argc, char **argv)
{
	int status;
	pid_t child;

	if (argc < 2) {
		calls();
		return 0;
	}
	if (strcmp(argv[1], "ptrace")) {
		fprintf(stderr, "usage: %s [ptrace]\n", argv[0]);
		return 2;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		calls();
		_exit(0);
	}
	for (;;) {
		if (waitpid(child, &status, 0) != child)
			return 1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 1;
		ptrace(PTRACE_SYSCALL, child, 0, 0);
	}
}
