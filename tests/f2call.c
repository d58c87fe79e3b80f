// SPDX-License-Identifier: GPL-2.0
/*
 * f2call [-x32] PATH MODE [nofollow|FLAGS]: call fchmodat2(AT_FDCWD, PATH,
 * MODE, flags) once and print the call and its result the way strace
 * would. For the demo and the sweep's smoke set (FLAGS: a number, such as
 * 0x1). -x32 (x86_64): as an x32 caller numbers it, 452 | __X32_SYSCALL_BIT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "tap.h"

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
	if (argc < 3) {
		fprintf(stderr, "usage: %s [-x32] PATH MODE [nofollow|FLAGS]\n",
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
