// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_acl - fchmodat2 on files with POSIX ACLs, on one filesystem: the
 * mode change rewrites the access ACL's owner, mask and other entries
 * (the group bits of st_mode are the mask's), leaves named entries and the
 * owning group's entry alone, leaves a directory's default ACL alone, and
 * gives a file without an extended ACL none. After each call the
 * system.posix_acl_access (and _default) xattrs are compared byte for byte
 * with what mainline's posix_acl_chmod() gives.
 *
 * Usage: subsys_acl -d DIR (a directory on the filesystem to test). Root only.
 */
#include "subsys.h"

#include <stdint.h>
#include <sys/xattr.h>

#define ACL_ACCESS	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"

/* include/uapi/linux/posix_acl_xattr.h, include/uapi/linux/posix_acl.h */
#define XATTR_VERSION	0x0002
#define A_USER_OBJ	0x01
#define A_USER		0x02
#define A_GROUP_OBJ	0x04
#define A_GROUP		0x08
#define A_MASK		0x10
#define A_OTHER		0x20
#define A_UNDEFINED_ID	((uint32_t)-1)

struct acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

struct acl {
	unsigned int n;
	struct acl_entry e[8];
};

static int wfd = -1;
static char work[PATH_MAX / 2];

/* The little-endian xattr value of @acl into @buf; its length. */
static size_t acl_encode(const struct acl *acl, unsigned char *buf)
{
	size_t len = 0;
	unsigned int i, j;
	uint32_t v;

	for (j = 0; j < 4; j++)
		buf[len++] = (XATTR_VERSION >> (8 * j)) & 0xff;
	for (i = 0; i < acl->n; i++) {
		buf[len++] = acl->e[i].tag & 0xff;
		buf[len++] = acl->e[i].tag >> 8;
		buf[len++] = acl->e[i].perm & 0xff;
		buf[len++] = acl->e[i].perm >> 8;
		v = acl->e[i].id;
		for (j = 0; j < 4; j++)
			buf[len++] = (v >> (8 * j)) & 0xff;
	}
	return len;
}

static void hexdump(const char *what, const unsigned char *buf, ssize_t len)
{
	char line[256];
	size_t off = 0;
	ssize_t i;

	for (i = 0; i < len && off + 3 < sizeof(line); i++)
		off += snprintf(line + off, sizeof(line) - off, "%02x", buf[i]);
	line[off] = '\0';
	diag("%s: %s", what, line);
}

static char *wpath(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", work, name);
	return path;
}

/* Set @name's ACL @xattr; the case skips if the filesystem has none. */
static int set_acl(const char *name, const char *xattr, const struct acl *acl)
{
	unsigned char buf[4 + 8 * 8];
	size_t len = acl_encode(acl, buf);

	if (!lsetxattr(wpath(name), xattr, buf, len, 0))
		return 0;
	if (errno == EOPNOTSUPP) {
		t_skip("no POSIX ACLs on this filesystem (setxattr %s: EOPNOTSUPP)",
		       xattr);
		return -1;
	}
	setup_error("setxattr", name, errno);
	return -1;
}

/* @name's xattr @xattr is exactly @acl (NULL: there is none). */
static void expect_acl(int line, const char *name, const char *xattr,
		       const struct acl *acl)
{
	unsigned char want[4 + 8 * 8], got[256];
	size_t wlen = acl ? acl_encode(acl, want) : 0;
	ssize_t len;

	len = lgetxattr(wpath(name), xattr, got, sizeof(got));
	if (!acl) {
		if (len == -1 && errno == ENODATA)
			return;
		t_fail("line %d: %s %s: expected no ACL (ENODATA), got %zd/%s",
		       line, name, xattr, len, len < 0 ? errno_name(errno) : "");
		if (len > 0)
			hexdump("got", got, len);
		return;
	}
	if (len == (ssize_t)wlen && !memcmp(got, want, wlen))
		return;
	t_fail("line %d: %s %s differs (%zd bytes, expected %zu)", line, name,
	       xattr, len, wlen);
	hexdump("expected", want, wlen);
	if (len > 0)
		hexdump("got", got, len);
}

#define EXPECT_ACL(name, xattr, acl) expect_acl(__LINE__, name, xattr, acl)

/* user::rw- user:nobody:rwx group::r-x group:nobody:-w- mask::rwx other::r-- */
static const struct acl full = {
	6, {
		{ A_USER_OBJ, 6, A_UNDEFINED_ID },
		{ A_USER, 7, NOBODY },
		{ A_GROUP_OBJ, 5, A_UNDEFINED_ID },
		{ A_GROUP, 2, NOBODY },
		{ A_MASK, 7, A_UNDEFINED_ID },
		{ A_OTHER, 4, A_UNDEFINED_ID },
	}
};

/* what posix_acl_chmod() makes of @full for @mode */
static struct acl full_after(unsigned int mode)
{
	struct acl a = full;

	a.e[0].perm = (mode >> 6) & 7;
	a.e[4].perm = (mode >> 3) & 7;
	a.e[5].perm = mode & 7;
	return a;
}

static void access_acl_mask_owner_other_rewritten(void)
{
	struct acl after = full_after(0640);

	if (make_file(wfd, "file", 0644) || set_acl("file", ACL_ACCESS, &full))
		return;
	/* the mask is the group class: st_mode shows it */
	EXPECT_MODE(wfd, "file", S_IFREG | 0674);
	EXPECT_OK(sys_fchmodat2(wfd, "file", 0640, 0));
	EXPECT_MODE(wfd, "file", S_IFREG | 0640);
	EXPECT_ACL("file", ACL_ACCESS, &after);
}

static void access_acl_nofollow_on_a_regular_file_same_as_followed(void)
{
	struct acl after = full_after(0751);

	if (make_file(wfd, "file2", 0644) ||
	    set_acl("file2", ACL_ACCESS, &full))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "file2", 0751, NOFOLLOW));
	EXPECT_MODE(wfd, "file2", S_IFREG | 0751);
	EXPECT_ACL("file2", ACL_ACCESS, &after);
}

static void access_acl_through_a_symlink_followed_nofollow_refused(void)
{
	struct acl after = full_after(0600);

	if (make_file(wfd, "file3", 0644) ||
	    set_acl("file3", ACL_ACCESS, &full) ||
	    make_link(wfd, "link3", "file3"))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "link3", 0600, NOFOLLOW), EOPNOTSUPP);
	EXPECT_MODE(wfd, "file3", S_IFREG | 0674);
	EXPECT_ACL("file3", ACL_ACCESS, &full);
	EXPECT_OK(sys_fchmodat2(wfd, "link3", 0600, 0));
	EXPECT_MODE(wfd, "file3", S_IFREG | 0600);
	EXPECT_ACL("file3", ACL_ACCESS, &after);
}

/* setuid/setgid/sticky bits: kept in i_mode, not in the ACL */
static void access_acl_special_bits_in_mode_only(void)
{
	struct acl after = full_after(07570);

	if (make_file(wfd, "file4", 0644) ||
	    set_acl("file4", ACL_ACCESS, &full))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "file4", 07570, 0));
	EXPECT_MODE(wfd, "file4", S_IFREG | 07570);
	EXPECT_ACL("file4", ACL_ACCESS, &after);
}

static void directory_default_acl_left_alone(void)
{
	/* user::rwx group::r-x group:nobody:rwx mask::rwx other::--- */
	static const struct acl def = {
		5, {
			{ A_USER_OBJ, 7, A_UNDEFINED_ID },
			{ A_GROUP_OBJ, 5, A_UNDEFINED_ID },
			{ A_GROUP, 7, NOBODY },
			{ A_MASK, 7, A_UNDEFINED_ID },
			{ A_OTHER, 0, A_UNDEFINED_ID },
		}
	};
	struct acl after = full_after(0710);

	unlinkat(wfd, "dir", AT_REMOVEDIR);
	if (!t_setup(!mkdirat(wfd, "dir", 0755), "mkdir", "dir"))
		return;
	if (set_acl("dir", ACL_DEFAULT, &def) ||
	    set_acl("dir", ACL_ACCESS, &full))
		return;
	EXPECT_OK(sys_fchmodat2(wfd, "dir", 0710, 0));
	EXPECT_MODE(wfd, "dir", S_IFDIR | 0710);
	EXPECT_ACL("dir", ACL_ACCESS, &after);
	EXPECT_ACL("dir", ACL_DEFAULT, &def);
}

/* a minimal ACL lives in the mode alone: chmod creates no xattr */
static void no_extended_acl_none_created(void)
{
	if (make_file(wfd, "plain", 0644))
		return;
	if (lgetxattr(wpath("plain"), ACL_ACCESS, NULL, 0) == -1 &&
	    errno == EOPNOTSUPP) {
		t_skip("no POSIX ACLs on this filesystem (getxattr: EOPNOTSUPP)");
		return;
	}
	EXPECT_ACL("plain", ACL_ACCESS, NULL);
	EXPECT_OK(sys_fchmodat2(wfd, "plain", 0750, 0));
	EXPECT_MODE(wfd, "plain", S_IFREG | 0750);
	EXPECT_ACL("plain", ACL_ACCESS, NULL);
}

/* refused calls leave the ACL as it was */
static void refused_calls_leave_the_acl(void)
{
	pid_t pid;

	if (make_file(wfd, "file5", 0644) ||
	    set_acl("file5", ACL_ACCESS, &full))
		return;
	EXPECT_ERR(sys_fchmodat2(wfd, "file5", 0600, AT_REMOVEDIR), EINVAL);
	pid = fork();
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		errno = 0;
		if (sys_fchmodat2(wfd, "file5", 0600, 0) != -1 ||
		    errno != EPERM) {
			printf("# nobody's call: errno %s, not EPERM\n",
			       errno_name(errno));
			_exit(1);
		}
		_exit(0);
	}
	t_expect_child(pid);
	EXPECT_MODE(wfd, "file5", S_IFREG | 0674);
	EXPECT_ACL("file5", ACL_ACCESS, &full);
}

static const struct subsys_case cases[] = {
	CASE(access_acl_mask_owner_other_rewritten),
	CASE(access_acl_nofollow_on_a_regular_file_same_as_followed),
	CASE(access_acl_through_a_symlink_followed_nofollow_refused),
	CASE(access_acl_special_bits_in_mode_only),
	CASE(directory_default_acl_left_alone),
	CASE(no_extended_acl_none_created),
	CASE(refused_calls_leave_the_acl),
};

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"file", "file2", "file3", "link3", "file4", "plain", "file5",
		NULL
	};
	static const char * const dirs[] = { "dir", NULL };

	wfd = subsys_root_begin(argc, argv, ARRAY_SIZE(cases), "acl", work,
				sizeof(work));
	subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
