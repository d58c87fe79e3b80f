// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2_test - userspace tests for fchmodat2(2), syscall 452.
 *
 * The same binary runs natively on a kernel with fchmodat2 (6.6+), where the
 * kernel's own implementation is the oracle that keeps these expectations
 * honest, and in a guest whose old kernel gets fchmodat2 from our module.
 * A node's expected mode after a change is what the running kernel's own
 * fchmodat gives a twin of it (fixture.c): mainline's fchmodat2 shares
 * chmod_common() with it.
 *
 * Every case calls the syscall directly and checks the return value, errno
 * and the full st_mode of every node of its fixture, so a call that changes
 * the wrong inode, or changes one and then reports an error, fails.
 *
 * The cases live by topic: calls.c (one call each, a table), paths.c
 * (flags, file descriptors, path limits), inode.c (file types, timestamps,
 * notification, unlinked inodes), readonly.c (read-only mounts, inode
 * flags), unpriv.c (as an unprivileged user); fixture.c builds the tree
 * each case starts from. This file runs them in that order.
 *
 * Output is TAP in the kselftest dialect (tests/harness.h). Exit status: 0
 * when no case failed, 1 otherwise; a kernel without fchmodat2 always fails.
 *
 * Usage: fchmodat2_test [-d DIR]
 *        fchmodat2_test --probe
 */
#define FCHMODAT2_TEST_MAIN
#include "fchmodat2_test.h"

struct env env = { .workfd = -1, .cwdfd = -1 };

/* the function cases, after the call cases, in this order */
static const struct {
	const struct fn_case *cases;
	const size_t *n;
} fn_lists[] = {
	{ path_cases, &n_path_cases },
	{ inode_cases, &n_inode_cases },
	{ readonly_cases, &n_readonly_cases },
	{ unpriv_cases, &n_unpriv_cases },
};

/* case @i of the run: a call case (NULL in *@fn) or a function case */
static const char *find_case(size_t i, void (**fn)(struct fixture *f))
{
	size_t l;

	*fn = NULL;
	if (i < n_call_cases)
		return call_cases[i].name;
	i -= n_call_cases;
	for (l = 0; l < ARRAY_SIZE(fn_lists); l++) {
		if (i < *fn_lists[l].n) {
			*fn = fn_lists[l].cases[i].fn;
			return fn_lists[l].cases[i].name;
		}
		i -= *fn_lists[l].n;
	}
	return NULL;
}

static size_t count_cases(void)
{
	size_t l, n = n_call_cases;

	for (l = 0; l < ARRAY_SIZE(fn_lists); l++)
		n += *fn_lists[l].n;
	return n;
}

static void run_case(size_t i)
{
	void (*fn)(struct fixture *f);
	const char *name = find_case(i, &fn);
	unsigned int num = i + 1;
	struct fixture f;

	t_case_begin();
	if (!fixture_setup(&f, num)) {
		if (fn)
			fn(&f);
		else
			run_call_case(&f, &call_cases[i]);
	}
	fixture_teardown(&f, num);
	t_case_end("%s", name);
}

/* ----------------------------------------------------------------------
 * Probe, work directory, main
 */

enum probe_result { PROBE_AVAILABLE, PROBE_ENOSYS, PROBE_UNEXPECTED };

/*
 * Invalid flags must be refused before any lookup. "/" gets its own mode,
 * so that even a broken implementation that accepted the call changes
 * nothing.
 */
static enum probe_result probe(long *ret, int *err)
{
	struct stat st;

	if (stat("/", &st))
		st.st_mode = 0755;
	errno = 0;
	*ret = sys_fchmodat2(AT_FDCWD, "/", st.st_mode & MODE_BITS, ~0u);
	*err = errno;
	if (*ret == -1 && *err == EINVAL)
		return PROBE_AVAILABLE;
	if (*ret == -1 && *err == ENOSYS)
		return PROBE_ENOSYS;
	return PROBE_UNEXPECTED;
}

static int setup_env(const char *parent)
{
	const char *base = parent;
	struct statfs sfs;

	umask(0);
	env.root = geteuid() == 0;
	env.cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (env.cwdfd < 0)
		env.cwdfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(env.ns_error, sizeof(env.ns_error), "not root");
	if (env.root) {
		if (unshare(CLONE_NEWNS))
			snprintf(env.ns_error, sizeof(env.ns_error),
				 "unshare(CLONE_NEWNS): %s", errno_name(errno));
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			snprintf(env.ns_error, sizeof(env.ns_error),
				 "making / private: %s", errno_name(errno));
		else
			env.private_ns = true;
	}
	if (!base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (snprintf(env.work, sizeof(env.work), "%s/fchmodat2-test.XXXXXX",
		     base) >= (int)sizeof(env.work)) {
		diag("%s: path too long", base);
		env.work[0] = '\0';
		return -1;
	}
	if (!mkdtemp(env.work)) {
		diag("mkdtemp %s: %s", env.work, errno_name(errno));
		env.work[0] = '\0';
		return -1;
	}
	if (!parent && env.private_ns) {
		if (mount("fchmodat2-test", env.work, "tmpfs", 0,
			  "mode=0755,size=16m"))
			diag("mounting tmpfs on %s: %s; using %s itself",
			     env.work, errno_name(errno), base);
		else
			env.tmpfs = true;
	}
	/* the unprivileged child looks up names below it */
	if (chmod(env.work, 0755)) {
		diag("chmod %s: %s", env.work, errno_name(errno));
		return -1;
	}
	env.workfd = open(env.work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (env.workfd < 0) {
		diag("open %s: %s", env.work, errno_name(errno));
		return -1;
	}
	if (fstatfs(env.workfd, &sfs))
		sfs.f_type = 0;
	diag("working in %s (filesystem magic 0x%lx%s), as uid %d%s",
	     env.work, (unsigned long)sfs.f_type, env.tmpfs ? ", our tmpfs" : "",
	     (int)geteuid(), env.private_ns ? ", private mount namespace" : "");
	return 0;
}

static void cleanup_env(void)
{
	if (env.workfd >= 0)
		close(env.workfd);
	if (env.tmpfs) {
		if (umount2(env.work, MNT_DETACH))
			diag("umount %s: %s", env.work, errno_name(errno));
		else if (rmdir(env.work))
			diag("rmdir %s: %s", env.work, errno_name(errno));
	} else if (env.work[0]) {
		remove_tree(AT_FDCWD, env.work);
	}
}

static void print_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [-d DIR]\n"
		"       %s --probe\n"
		"  -d DIR   run in a new temporary directory below DIR\n"
		"           (default: as root, a tmpfs in a private mount\n"
		"           namespace; otherwise below $TMPDIR or /tmp)\n"
		"  --probe  only report whether fchmodat2 exists (exit 0: yes,\n"
		"           1: ENOSYS, 2: something else)\n", prog, prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "probe", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *parent = NULL;
	bool probe_only = false, runnable = false;
	enum probe_result pr;
	long ret;
	void (*fn)(struct fixture *f);
	int c, err;
	size_t i, n;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			parent = optarg;
			break;
		case 'p':
			probe_only = true;
			break;
		case 'h':
			print_usage(stdout, argv[0]);
			return 0;
		default:
			print_usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		print_usage(stderr, argv[0]);
		return 2;
	}

	pr = probe(&ret, &err);
	if (probe_only) {
		if (pr == PROBE_AVAILABLE)
			printf("fchmodat2: available\n");
		else if (pr == PROBE_ENOSYS)
			printf("fchmodat2: ENOSYS\n");
		else if (ret == -1)
			printf("fchmodat2: unexpected errno %s\n",
			       errno_name(err));
		else
			printf("fchmodat2: unexpected return %ld\n", ret);
		return pr == PROBE_AVAILABLE ? 0 : pr == PROBE_ENOSYS ? 1 : 2;
	}

	n = count_cases();
	t_plan(n);
	if (pr == PROBE_ENOSYS) {
		diag("fchmodat2 (syscall %d) is not available on this kernel",
		     __NR_fchmodat2);
	} else {
		if (pr == PROBE_UNEXPECTED)
			diag("probe: invalid flags gave %ld/%s, not -1/EINVAL",
			     ret, ret == -1 ? errno_name(err) : "-");
		runnable = !setup_env(parent);
		if (!runnable)
			diag("no work directory: every case fails");
	}

	for (i = 0; i < n; i++) {
		if (runnable) {
			run_case(i);
		} else {
			t_case_begin();
			t_state.failures++;
			t_case_end("%s", find_case(i, &fn));
		}
	}
	cleanup_env();

	return t_finish();
}
