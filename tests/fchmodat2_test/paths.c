// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: flags, file descriptors, path resolution limits.
 */
#include "fchmodat2_test.h"

static void invalid_flag_bits_einval_mode_unchanged(struct fixture *f)
{
	unsigned int bit, flag;
	int fd;

	fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (!t_setup(fd >= 0, "open", "file"))
		return;
	f->aux_fd = fd;
	for (bit = 0; bit < 32; bit++) {
		flag = 1u << bit;
		if (flag & VALID_FLAGS)
			continue;
		EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "dir", 0700, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "fifo", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600,
					 flag | NOFOLLOW), EINVAL);
		EXPECT_ERR(sys_fchmodat2(fd, "", 0600, flag | EMPTY), EINVAL);
		EXPECT_ERR(sys_fchmodat2(fd, "", 0600, flag | VALID_FLAGS),
			   EINVAL);
		if (t_state.failures) {
			diag("with flag bit 0x%08x", flag);
			break;
		}
	}
	EXPECT_ERR(sys_fchmodat2(f->dfd, "file", 0600, ~0u), EINVAL);
	EXPECT_TREE(f, NULL, 0);
}

static void invalid_flag_bits_einval_before_lookup(struct fixture *f)
{
	char longname[NAME_MAX + 2];
	unsigned int bit, flag;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (bit = 0; bit < 32; bit++) {
		flag = 1u << bit;
		if (flag & VALID_FLAGS)
			continue;
		EXPECT_ERR(sys_fchmodat2(f->dfd, "missing", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "missing/file", 0600, flag),
			   EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "file/x", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, "loop1", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, longname, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, flag), EINVAL);
		EXPECT_ERR(sys_fchmodat2(-1, "", 0600, flag | EMPTY), EINVAL);
		if (t_state.failures) {
			diag("with flag bit 0x%08x", flag);
			break;
		}
	}
	EXPECT_TREE(f, NULL, 0);
}

/* The kernel takes int-sized arguments: a 64-bit register's upper half. */
static void syscall_args_upper_32_bits_ignored(struct fixture *f)
{
#if ULONG_MAX > 0xffffffffUL
	const unsigned long high = ~0UL << 32;

	EXPECT_OK(sys_fchmodat2(f->dfd, "file", high | 0600, 0));
	EXPECT_MODE(f->dfd, "file", S_IFREG | 0600);
	EXPECT_OK(sys_fchmodat2(f->dfd, "file", 0640, high));
	EXPECT_ERR(sys_fchmodat2(f->dfd, "link", 0600, high | NOFOLLOW),
		   EOPNOTSUPP);
	EXPECT_TREE(f, "file", 0640);
#else
	(void)f;
	t_skip("32-bit long: syscall arguments have no upper 32 bits");
#endif
}

static void bad_dirfd_relative_path_ebadf(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, 0), EBADF);
	EXPECT_ERR(sys_fchmodat2(-1, "file", 0600, NOFOLLOW), EBADF);
	EXPECT_ERR(sys_fchmodat2(INT_MAX, "file", 0600, 0), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void closed_dirfd_relative_path_ebadf(struct fixture *f)
{
	int fd = dup(f->dfd);

	if (fd < 0 || close(fd)) {
		setup_error("dup/close", ".", errno);
		return;
	}
	EXPECT_ERR(sys_fchmodat2(fd, "file", 0600, 0), EBADF);
	EXPECT_ERR(sys_fchmodat2(fd, "", 0600, EMPTY), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void bad_dirfd_empty_path_ebadf(struct fixture *f)
{
	EXPECT_ERR(sys_fchmodat2(-1, "", 0600, EMPTY), EBADF);
	EXPECT_ERR(sys_fchmodat2(-1, "", 0600, EMPTY | NOFOLLOW), EBADF);
	EXPECT_TREE(f, NULL, 0);
}

static void absolute_path_ignores_bad_dirfd(struct fixture *f)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/file", f->dir);
	EXPECT_OK(sys_fchmodat2(-1, path, 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void absolute_path_ignores_file_dirfd(struct fixture *f)
{
	char path[PATH_MAX];

	f->aux_fd = openat(f->dfd, "file", O_RDONLY | O_CLOEXEC);
	if (!t_setup(f->aux_fd >= 0, "open", "file"))
		return;
	snprintf(path, sizeof(path), "%s/dir/file", f->dir);
	EXPECT_OK(sys_fchmodat2(f->aux_fd, path, 0600, NOFOLLOW));
	EXPECT_TREE(f, "dir/file", 0600);
}

static void at_fdcwd_relative_path_file_changed(struct fixture *f)
{
	if (!t_setup(!fchdir(f->dfd), "chdir", f->dir))
		return;
	EXPECT_OK(sys_fchmodat2(AT_FDCWD, "file", 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void at_fdcwd_empty_path_cwd_changed(struct fixture *f)
{
	if (!t_setup(!fchdir(f->dfd), "chdir", f->dir))
		return;
	EXPECT_OK(sys_fchmodat2(AT_FDCWD, "", 0700, EMPTY));
	EXPECT_TREE(f, ".", 0700);
}

static void bad_path_pointer_efault(struct fixture *f)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, 0), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, NOFOLLOW), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, BAD_PTR, 0600, EMPTY), EFAULT);

	/* "file" at the very end of a page, the next page unmapped */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + page, page)) {
		setup_error("mmap", "", errno);
		return;
	}
	memcpy(map + page - 4, "file", 4);
	EXPECT_ERR(sys_fchmodat2(f->dfd, map + page - 4, 0600, 0), EFAULT);
	munmap(map, page);
	EXPECT_TREE(f, NULL, 0);
}

static void null_path_efault_even_with_at_empty_path(struct fixture *f)
{
	f->aux_fd = openat(f->dfd, "file", O_PATH | O_CLOEXEC);
	if (!t_setup(f->aux_fd >= 0, "open", "file"))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, 0), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->dfd, NULL, 0600, NOFOLLOW), EFAULT);
	EXPECT_ERR(sys_fchmodat2(f->aux_fd, NULL, 0600, EMPTY), EFAULT);
	EXPECT_TREE(f, NULL, 0);
}

static void name_max_component_file_changed(struct fixture *f)
{
	char name[NAME_MAX + 1];

	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	if (make_file(f->dfd, name, 0644))
		return;
	EXPECT_OK(sys_fchmodat2(f->dfd, name, 0600, 0));
	EXPECT_MODE(f->dfd, name, S_IFREG | 0600);
	EXPECT_TREE(f, NULL, 0);
}

static void component_over_name_max_enametoolong(struct fixture *f)
{
	char name[NAME_MAX + 2 + 4];

	memcpy(name, "dir/", 4);
	memset(name + 4, 'n', NAME_MAX + 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_ERR(sys_fchmodat2(f->dfd, name + 4, 0600, 0), ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, name + 4, 0600, NOFOLLOW),
		   ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, name, 0600, 0), ENAMETOOLONG);
	EXPECT_TREE(f, NULL, 0);
}

/* A relative path of exactly @len characters that names @tail. */
static void long_path(char *buf, size_t len, const char *tail)
{
	size_t pad = len - strlen(tail), i;

	for (i = 0; i + 2 <= pad; i += 2)
		memcpy(buf + i, "./", 2);
	if (i < pad)
		buf[i++] = '/';
	memcpy(buf + i, tail, strlen(tail) + 1);
}

static void path_of_path_max_minus_one_file_changed(struct fixture *f)
{
	char path[PATH_MAX + 1];

	long_path(path, PATH_MAX - 1, "file");
	EXPECT_EQ(strlen(path), PATH_MAX - 1);
	EXPECT_OK(sys_fchmodat2(f->dfd, path, 0600, 0));
	EXPECT_TREE(f, "file", 0600);
}

static void path_of_path_max_enametoolong(struct fixture *f)
{
	char path[PATH_MAX + 1];

	long_path(path, PATH_MAX, "file");
	EXPECT_EQ(strlen(path), PATH_MAX);
	EXPECT_ERR(sys_fchmodat2(f->dfd, path, 0600, 0), ENAMETOOLONG);
	EXPECT_ERR(sys_fchmodat2(f->dfd, path, 0600, NOFOLLOW), ENAMETOOLONG);
	EXPECT_TREE(f, NULL, 0);
}

/* c00 -> c01 -> ... -> c(n-1) -> file: following c00 crosses n links */
static int make_chain(struct fixture *f, int n)
{
	char name[8], target[8];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		snprintf(target, sizeof(target), "c%02d", i + 1);
		if (make_link(f->dfd, name, i == n - 1 ? "file" : target))
			return -1;
	}
	return 0;
}

static void expect_chain_unchanged(struct fixture *f, int n)
{
	unsigned int want = tree_mode(f, "link");
	char name[8];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		EXPECT_MODE(f->dfd, name, want);
	}
}

static void symlink_chain_of_40_followed_target_changed(struct fixture *f)
{
	if (make_chain(f, 40))
		return;
	EXPECT_OK(sys_fchmodat2(f->dfd, "c00", 0600, 0));
	expect_chain_unchanged(f, 40);
	EXPECT_TREE(f, "file", 0600);
}

static void symlink_chain_of_41_eloop_target_unchanged(struct fixture *f)
{
	if (make_chain(f, 41))
		return;
	EXPECT_ERR(sys_fchmodat2(f->dfd, "c00", 0600, 0), ELOOP);
	EXPECT_ERR(sys_fchmodat2(f->dfd, "c00", 0600, NOFOLLOW), EOPNOTSUPP);
	expect_chain_unchanged(f, 41);
	EXPECT_TREE(f, NULL, 0);
}

const struct fn_case path_cases[] = {
	FN_CASE(invalid_flag_bits_einval_mode_unchanged),
	FN_CASE(invalid_flag_bits_einval_before_lookup),
	FN_CASE(syscall_args_upper_32_bits_ignored),
	FN_CASE(bad_dirfd_relative_path_ebadf),
	FN_CASE(closed_dirfd_relative_path_ebadf),
	FN_CASE(bad_dirfd_empty_path_ebadf),
	FN_CASE(absolute_path_ignores_bad_dirfd),
	FN_CASE(absolute_path_ignores_file_dirfd),
	FN_CASE(at_fdcwd_relative_path_file_changed),
	FN_CASE(at_fdcwd_empty_path_cwd_changed),
	FN_CASE(bad_path_pointer_efault),
	FN_CASE(null_path_efault_even_with_at_empty_path),
	FN_CASE(name_max_component_file_changed),
	FN_CASE(component_over_name_max_enametoolong),
	FN_CASE(path_of_path_max_minus_one_file_changed),
	FN_CASE(path_of_path_max_enametoolong),
	FN_CASE(symlink_chain_of_40_followed_target_changed),
	FN_CASE(symlink_chain_of_41_eloop_target_unchanged),
};
const size_t n_path_cases = ARRAY_SIZE(path_cases);
