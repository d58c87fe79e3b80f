// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test: cases that are one call, then the whole fixture is checked.
 */
#include "fchmodat2_test.h"

const struct call_case call_cases[] = {
	/* name,
	 *   at, at_flags, path, mode, flags, errno, node changed
	 */
	{ "regular_file_mode_changed",
	  NULL, 0, "file", 0600, 0, 0, "file" },
	{ "regular_file_nofollow_mode_changed",
	  NULL, 0, "file", 0600, NOFOLLOW, 0, "file" },
	{ "directory_mode_changed",
	  NULL, 0, "dir", 0700, 0, 0, "dir" },
	{ "directory_nofollow_mode_changed",
	  NULL, 0, "dir", 0700, NOFOLLOW, 0, "dir" },
	{ "fifo_mode_changed_without_opening_it",
	  NULL, 0, "fifo", 0600, 0, 0, "fifo" },
	{ "fifo_nofollow_mode_changed",
	  NULL, 0, "fifo", 0600, NOFOLLOW, 0, "fifo" },
	{ "same_mode_succeeds_mode_unchanged",
	  NULL, 0, "file", 0644, 0, 0, "file" },

	{ "symlink_followed_target_changed_link_unchanged",
	  NULL, 0, "link", 0600, 0, 0, "file" },
	{ "nofollow_symlink_eopnotsupp_mode_unchanged",
	  NULL, 0, "link", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dangling_symlink_followed_enoent",
	  NULL, 0, "dangling", 0600, 0, ENOENT, NULL },
	{ "dangling_symlink_nofollow_eopnotsupp",
	  NULL, 0, "dangling", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "symlink_loop_followed_eloop",
	  NULL, 0, "loop1", 0600, 0, ELOOP, NULL },
	{ "symlink_loop_nofollow_eopnotsupp",
	  NULL, 0, "loop1", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "symlink_loop_as_path_component_nofollow_eloop",
	  NULL, 0, "loop1/file", 0600, NOFOLLOW, ELOOP, NULL },
	{ "dir_symlink_followed_dir_changed",
	  NULL, 0, "dlink", 0700, 0, 0, "dir" },
	{ "dir_symlink_nofollow_eopnotsupp",
	  NULL, 0, "dlink", 0700, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dir_symlink_trailing_slash_nofollow_dir_changed",
	  NULL, 0, "dlink/", 0700, NOFOLLOW, 0, "dir" },
	{ "dir_symlink_trailing_slash_followed_dir_changed",
	  NULL, 0, "dlink/", 0700, 0, 0, "dir" },
	{ "dir_symlink_trailing_dot_nofollow_dir_changed",
	  NULL, 0, "dlink/.", 0700, NOFOLLOW, 0, "dir" },
	{ "dir_symlink_component_nofollow_final_file_changed",
	  NULL, 0, "dlink/file", 0600, NOFOLLOW, 0, "dir/file" },
	{ "dir_symlink_component_nofollow_final_symlink_eopnotsupp",
	  NULL, 0, "dlink/link", 0600, NOFOLLOW, EOPNOTSUPP, NULL },
	{ "dir_symlink_component_final_symlink_followed_target_changed",
	  NULL, 0, "dlink/link", 0600, 0, 0, "dir/file" },
	{ "file_symlink_trailing_slash_enotdir",
	  NULL, 0, "link/", 0600, 0, ENOTDIR, NULL },
	{ "file_symlink_trailing_slash_nofollow_enotdir",
	  NULL, 0, "link/", 0600, NOFOLLOW, ENOTDIR, NULL },
	{ "regular_file_trailing_slash_enotdir",
	  NULL, 0, "file/", 0600, 0, ENOTDIR, NULL },
	{ "regular_file_as_path_component_enotdir",
	  NULL, 0, "file/x", 0600, 0, ENOTDIR, NULL },
	{ "missing_file_enoent",
	  NULL, 0, "missing", 0600, 0, ENOENT, NULL },
	{ "missing_file_nofollow_enoent",
	  NULL, 0, "missing", 0600, NOFOLLOW, ENOENT, NULL },
	{ "missing_path_component_enoent",
	  NULL, 0, "missing/file", 0600, 0, ENOENT, NULL },

	{ "dot_relative_to_dirfd_dir_changed",
	  "dir", DIRFD, ".", 0700, 0, 0, "dir" },
	{ "dot_nofollow_relative_to_dirfd_dir_changed",
	  "dir", DIRFD, ".", 0700, NOFOLLOW, 0, "dir" },
	{ "dotdot_relative_to_dirfd_parent_changed",
	  "dir/sub", DIRFD, "..", 0700, 0, 0, "dir" },
	{ "dotdot_nofollow_relative_to_dirfd_parent_changed",
	  "dir/sub", DIRFD, "..", 0700, NOFOLLOW, 0, "dir" },
	{ "opath_dirfd_relative_path_file_changed",
	  "dir", O_PATH | O_DIRECTORY, "file", 0600, 0, 0, "dir/file" },
	{ "file_dirfd_relative_path_enotdir",
	  "file", O_RDONLY, "x", 0600, 0, ENOTDIR, NULL },
	{ "opath_file_dirfd_relative_path_enotdir",
	  "file", O_PATH, "x", 0600, 0, ENOTDIR, NULL },

	{ "empty_path_without_at_empty_path_enoent",
	  NULL, 0, "", 0700, 0, ENOENT, NULL },
	{ "empty_path_file_fd_without_at_empty_path_enoent",
	  "file", O_RDONLY, "", 0600, NOFOLLOW, ENOENT, NULL },
	{ "empty_path_regular_fd_file_changed",
	  "file", O_RDONLY, "", 0600, EMPTY, 0, "file" },
	{ "empty_path_regular_fd_nofollow_file_changed",
	  "file", O_RDONLY, "", 0600, EMPTY | NOFOLLOW, 0, "file" },
	{ "empty_path_opath_file_fd_file_changed",
	  "file", O_PATH, "", 0600, EMPTY, 0, "file" },
	{ "empty_path_opath_file_fd_nofollow_file_changed",
	  "file", O_PATH, "", 0600, EMPTY | NOFOLLOW, 0, "file" },
	{ "empty_path_dir_fd_dir_changed",
	  "dir", DIRFD, "", 0700, EMPTY, 0, "dir" },
	{ "empty_path_opath_dir_fd_dir_changed",
	  "dir", O_PATH | O_DIRECTORY, "", 0700, EMPTY, 0, "dir" },
	{ "empty_path_opath_dir_fd_nofollow_dir_changed",
	  "dir", O_PATH | O_DIRECTORY, "", 0700, EMPTY | NOFOLLOW, 0, "dir" },
	{ "empty_path_opath_fifo_fd_fifo_changed",
	  "fifo", O_PATH, "", 0600, EMPTY, 0, "fifo" },
	{ "empty_path_opath_symlink_fd_eopnotsupp_target_unchanged",
	  "link", O_PATH | O_NOFOLLOW, "", 0600, EMPTY, EOPNOTSUPP, NULL },
	{ "empty_path_opath_symlink_fd_nofollow_eopnotsupp",
	  "link", O_PATH | O_NOFOLLOW, "", 0600, EMPTY | NOFOLLOW,
	  EOPNOTSUPP, NULL },
	{ "empty_path_opath_dangling_symlink_fd_eopnotsupp",
	  "dangling", O_PATH | O_NOFOLLOW, "", 0600, EMPTY, EOPNOTSUPP, NULL },
	{ "at_empty_path_with_nonempty_path_file_changed",
	  NULL, 0, "file", 0600, EMPTY, 0, "file" },
	{ "at_empty_path_with_nonempty_path_symlink_followed",
	  NULL, 0, "link", 0600, EMPTY, 0, "file" },
	{ "at_empty_path_nofollow_symlink_eopnotsupp",
	  NULL, 0, "link", 0600, EMPTY | NOFOLLOW, EOPNOTSUPP, NULL },

	{ "mode_file_type_bits_ignored",
	  NULL, 0, "file", 0170600, 0, 0, "file" },
	{ "mode_regular_type_bits_on_directory_ignored",
	  NULL, 0, "dir", 0100700, 0, 0, "dir" },
	{ "mode_bit_16_ignored",
	  NULL, 0, "file", 0200600, 0, 0, "file" },
	{ "mode_high_bits_ignored",
	  NULL, 0, "file", 0xfffff000u | 0640, 0, 0, "file" },
	{ "mode_all_bits_set_gives_07777",
	  NULL, 0, "file", 0xffffffffu, 0, 0, "file" },
	{ "mode_zero_applied",
	  NULL, 0, "file", 0, 0, 0, "file" },
	{ "setuid_bit_applied",
	  NULL, 0, "file", 04755, 0, 0, "file" },
	{ "setgid_bit_applied",
	  NULL, 0, "file", 02755, 0, 0, "file" },
	{ "sticky_bit_applied_to_file",
	  NULL, 0, "file", 01644, 0, 0, "file" },
	{ "all_special_bits_applied",
	  NULL, 0, "file", 07777, 0, 0, "file" },
	{ "sticky_bit_applied_to_directory",
	  NULL, 0, "dir", 01777, 0, 0, "dir" },
	{ "setgid_bit_applied_to_directory",
	  NULL, 0, "dir", 02755, 0, 0, "dir" },
	{ "special_bits_cleared_on_directory",
	  NULL, 0, "dir/sub", 0751, 0, 0, "dir/sub" },
};
const size_t n_call_cases = ARRAY_SIZE(call_cases);

void run_call_case(struct fixture *f, const struct call_case *c)
{
	int dfd = f->dfd;

	if (c->at) {
		f->aux_fd = openat(f->dfd, c->at, c->at_flags | O_CLOEXEC);
		if (f->aux_fd < 0) {
			setup_error("open", c->at, errno);
			return;
		}
		dfd = f->aux_fd;
	}
	EXPECT_RESULT(sys_fchmodat2(dfd, c->path, c->mode, c->flags), c->err);
	EXPECT_TREE(f, c->changes, c->mode);
	if (t_state.failures)
		diag("call: fchmodat2(%s, \"%s\", 0%o, 0x%x)",
		     c->at ? c->at : "<fixture dir>", c->path, c->mode, c->flags);
}
