// SPDX-License-Identifier: GPL-2.0
/*
 * modload MODULE.ko [PARAMS]: one finit_module() call, no retry (busybox
 * insmod retries a failed finit_module() with init_module(), which runs the
 * module's init twice). Prints the errno name on failure; exit 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s MODULE.ko [PARAMS]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	if (syscall(SYS_finit_module, fd, argc > 2 ? argv[2] : "", 0)) {
		printf("modload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
