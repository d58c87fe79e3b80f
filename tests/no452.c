// SPDX-License-Identifier: GPL-2.0
/*
 * no452 [-e ERRNO] COMMAND [ARG...]: run COMMAND, and everything it
 * starts, with system call 452 answering ENOSYS (64-bit, x32 and i386
 * callers), as on a kernel older than 6.6 without the module: a seccomp
 * filter, which every child inherits. A stand-in for Debian 12's own
 * kernel, to show that make check passes on the machines that need the
 * module:
 *
 *   build/no452 make check
 *
 * (As another user than root it sets no_new_privs, under which sudo
 * cannot work: run "make deps" first.)
 *
 * -e ERRNO answers that errno number instead (a seccomp profile that
 * does not know 452 and says EPERM: -e 1).
 *
 * QEMU guests are not affected (their kernels are emulated).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define NR 452
#define X32_BIT 0x40000000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int install_filter(unsigned int err)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* every architecture numbers fchmodat2 452 (x32: | bit 30) */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR | X32_BIT, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
	};
	struct sock_fprog prog = { ARRAY_SIZE(insns), insns };

	/* root may filter without no_new_privs, which would stop sudo */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("no452: PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		perror("no452: seccomp");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int err = ENOSYS;

	if (argc > 3 && !strcmp(argv[1], "-e")) {
		err = strtoul(argv[2], NULL, 0) & SECCOMP_RET_DATA;
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [-e ERRNO] COMMAND [ARG...]\n",
			argv[0]);
		return 2;
	}
	if (install_filter(err))
		return 1;
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no452: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
