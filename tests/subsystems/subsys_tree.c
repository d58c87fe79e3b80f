// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_tree - a tree for chmod -R, and a check of what chmod made of it.
 *
 *   subsys_tree -m DIR N       make DIR with N regular files (mode 0644) in
 *                          directories of 100 (mode 0755), and one symlink
 *                          per directory ("link" -> its first file)
 *   subsys_tree -c DIR MODE [DIRMODE]
 *                          check: every file and directory has MODE (the
 *                          directories DIRMODE, if given), every
 *                          symlink still 0777; prints what it counted
 *                          and the first wrong modes as "# " lines, and
 *                          exits 1 if any was wrong (the caller's TAP
 *                          line says so: tests/subsystems/suite.sh)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static unsigned long files, dirs, links, wrong;

static void check(int dfd, const char *path, unsigned int mode,
		  unsigned int dmode)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	struct stat st;

	if (!d) {
		wrong++;
		return;
	}
	while ((e = readdir(d))) {
		unsigned int want;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			wrong++;
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			links++;
			want = S_IFLNK | 0777;
		} else if (S_ISDIR(st.st_mode)) {
			dirs++;
			want = S_IFDIR | dmode;
		} else {
			files++;
			want = S_IFREG | mode;
		}
		if (st.st_mode != want && wrong++ < 5)
			printf("# %s/%s: mode 0%o, not 0%o\n", path, e->d_name,
			       st.st_mode, want);
		if (S_ISDIR(st.st_mode)) {
			char sub[4096];
			int fd = openat(dirfd(d), e->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			if (fd < 0)
				wrong++;
			else
				check(fd, sub, mode, dmode);
		}
	}
	closedir(d);
}

static int make(const char *dir, unsigned long n)
{
	char path[4096];
	unsigned long i;
	int fd;

	umask(0);
	if (mkdir(dir, 0755))
		return 1;
	for (i = 0; i < n; i++) {
		if (i % 100 == 0) {
			snprintf(path, sizeof(path), "%s/d%lu", dir, i / 100);
			if (mkdir(path, 0755))
				return 1;
			snprintf(path, sizeof(path), "%s/d%lu/link", dir,
				 i / 100);
			if (symlink("f0", path))
				return 1;
		}
		snprintf(path, sizeof(path), "%s/d%lu/f%lu", dir, i / 100,
			 i % 100);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int mode, dmode;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "-m"))
		return make(argv[2], strtoul(argv[3], NULL, 10));
	if (argc < 4 || argc > 5 || strcmp(argv[1], "-c")) {
		fprintf(stderr, "usage: %s -m DIR N | -c DIR MODE [DIRMODE]\n",
			argv[0]);
		return 2;
	}
	mode = strtoul(argv[3], NULL, 8);
	dmode = argc == 5 ? strtoul(argv[4], NULL, 8) : mode;
	fd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		printf("# %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	{
		struct stat st;

		dirs++;
		if (fstat(fd, &st) || st.st_mode != (S_IFDIR | dmode))
			wrong++;
	}
	check(fd, argv[2], mode, dmode);
	printf("# below %s: %lu files, %lu directories, %lu symlinks, %lu wrong\n",
	       argv[2], files, dirs, links, wrong);
	return wrong ? 1 : 0;
}
