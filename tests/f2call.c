// SPDX-License-Identifier: GPL-2.0
/*
 * f2call [-x32] [-seccomp] PATH MODE [nofollow|FLAGS]: call
 * fchmodat2(AT_FDCWD, PATH, MODE, flags) once and print the call and its
 * result the way strace would. For the demo and the sweep's smoke set
 * (FLAGS: a number, such as 0x1). -x32 (x86_64): as an x32 caller numbers
 * it, 452 | __X32_SYSCALL_BIT. -seccomp: under a seccomp filter that
 * allows every call (as a container runtime's), so that the call goes
 * through the kernel's seccomp filter code (tests/guest/tracers.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "harness.h"

#include "../userspace/fchmodat2.h"	/* __NR_fchmodat2, AT_ flags */

int main(int argc, char **argv)
{
	long nr = __NR_fchmodat2, ret;
	unsigned int mode, flags = 0;
	char flagstr[32];
	int nofollow;

	if (argc > 1 && !strcmp(argv[1], "-x32")) {
#if defined(__x86_64__) && !defined(__ILP32__)
		nr |= 0x40000000;
		argv++;
		argc--;
#else
		fprintf(stderr, "%s: -x32 is for x86_64 programs\n", argv[0]);
		return 2;
#endif
	}
	if (argc > 1 && !strcmp(argv[1], "-seccomp")) {
		struct sock_filter allow[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { 1, allow };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
			perror("seccomp");
			return 2;
		}
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: %s [-x32] [-seccomp] PATH MODE [nofollow|FLAGS]\n",
			argv[0]);
		return 2;
	}
	nofollow = argc > 3 && !strcmp(argv[3], "nofollow");
	mode = strtoul(argv[2], NULL, 8);
	if (nofollow) {
		flags = AT_SYMLINK_NOFOLLOW;
		snprintf(flagstr, sizeof(flagstr), "AT_SYMLINK_NOFOLLOW");
	} else {
		if (argc > 3)
			flags = strtoul(argv[3], NULL, 0);
		snprintf(flagstr, sizeof(flagstr), flags ? "%#x" : "0", flags);
	}
	ret = syscall(nr, AT_FDCWD, argv[1], mode, flags);
	printf("%sfchmodat2(AT_FDCWD, \"%s\", 0%o, %s) = ",
	       nr != __NR_fchmodat2 ? "x32 " : "", argv[1], mode, flagstr);
	if (ret == 0)
		printf("0\n");
	else
		printf("-1 %s (%s)\n", errno_name(errno), strerror(errno));
	return ret == 0 ? 0 : 1;
}
