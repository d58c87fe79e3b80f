// SPDX-License-Identifier: GPL-2.0
/*
 * harness_test: the test library's own test (tests/harness.h). Each
 * scenario runs in a child whose standard output is a pipe: what it prints
 * and its exit status are compared with what the library must print, line
 * by line (an expected line is a pattern: fnmatch(3)). The cases: a check
 * is true if it held, false on a failure (the case's "assert": it returns,
 * and nothing after it runs); t_setup()'s message; KTAP subtests (their indent, plan
 * and result in the parent: a failed case, a plan that does not match, all
 * skipped, nested, one left open).
 */
#include "harness.h"
#include <fnmatch.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- scenes */

static void assert_case(void)
{
	if (!EXPECT_EQ(1 + 1, 3))
		return;
	t_fail("reached after a failed check");
}

static long fails_with_enoent(void)
{
	errno = ENOENT;
	return -1;
}

static void assert_passes_case(void)
{
	int fds[2];

	if (!t_setup(!pipe(fds), "pipe", ""))
		return;
	if (!EXPECT_OK(0) || !EXPECT_ERR(fails_with_enoent(), ENOENT) ||
	    !EXPECT_EQ(2, 2) || !EXPECT_FD_MODE(fds[0], S_IFIFO | 0600) ||
	    !EXPECT_ABSENT(AT_FDCWD, "/nonexistent-f2-harness"))
		t_fail("a check that held returned false");
	close(fds[0]);
	close(fds[1]);
}

static void scene_assert(void)
{
	t_plan(2);
	t_case_begin();
	assert_case();
	t_case_end("assert_ends_the_case");
	t_case_begin();
	assert_passes_case();
	t_case_end("asserts_that_hold");
}

static void setup_case(void)
{
	if (!t_setup(open("/nonexistent-f2-harness/x", O_RDONLY) >= 0, "open",
		     "/nonexistent-f2-harness/x"))
		return;
	t_fail("reached after a failed t_setup()");
}

static void scene_setup(void)
{
	t_plan(1);
	t_case_begin();
	setup_case();
	t_case_end("setup_fails_the_case");
}

static void scene_subtest_pass(void)
{
	t_plan(2);
	t_subtest_begin(2, "group %d", 1);
	t_result(true, "a");
	t_case_begin();
	t_skip("why");
	t_case_end("b");
	t_subtest_end();
	t_result(true, "after");
}

static void scene_subtest_fail(void)
{
	t_plan(1);
	t_subtest_begin(3, "g");
	t_result(false, "a");
	t_result(true, "b");
	t_subtest_end();
}

static void scene_subtest_plan(void)
{
	t_plan(1);
	t_subtest_begin(2, "g");
	t_result(true, "a");
	t_subtest_end();
}

static void scene_subtest_skip(void)
{
	t_plan(1);
	t_subtest_begin(2, "g");
	t_case_begin();
	t_skip("one");
	t_case_end("a");
	t_case_begin();
	t_skip("two");
	t_case_end("b");
	t_subtest_end();
}

static void scene_nested(void)
{
	t_plan(1);
	t_subtest_begin(2, "outer");
	t_subtest_begin(1, "inner");
	t_result(true, "deep");
	t_subtest_end();
	t_result(true, "shallow");
	t_subtest_end();
}

static void scene_too_deep(void)
{
	unsigned int i;

	t_plan(1);
	for (i = 0; i <= T_MAX_DEPTH; i++)
		t_subtest_begin(1, "level %u", i);
	t_result(true, "deepest");
	for (i = 0; i <= T_MAX_DEPTH; i++)
		t_subtest_end();
}

static void false_case(void)
{
	int fds[2];
	bool held = false;

	if (!t_setup(!pipe(fds), "pipe", ""))
		return;
	held |= EXPECT_OK(fails_with_enoent());
	held |= EXPECT_ERR(0, ENOENT);
	held |= EXPECT_EQ(1, 2);
	held |= EXPECT_FD_MODE(fds[0], S_IFREG | 0600);
	held |= EXPECT_MODE(AT_FDCWD, "/nonexistent-f2-harness", 0);
	held |= EXPECT_ABSENT(AT_FDCWD, "/");
	if (held)
		t_fail("a failed check returned true");
	close(fds[0]);
	close(fds[1]);
}

static void scene_false(void)
{
	t_plan(1);
	t_case_begin();
	false_case();
	t_case_end("every_check_false");
}

static void scene_left_open(void)
{
	t_plan(1);
	t_subtest_begin(1, "open");
	t_result(true, "a");
}

/* ---------------------------------------------------------- expectations */

struct scene {
	const char *name;
	void (*fn)(void);
	int status;		/* the child's exit status */
	const char *out;	/* what it prints, each line an fnmatch(3) pattern */
};

static const struct scene scenes[] = {
	{ "a failed check returns false and ends the case, the next runs",
	  scene_assert, 1,
	  "TAP version 13\n1..2\n"
	  "# *harness_test.c:*: 1 + 1: expected 3, got 2\n"
	  "not ok 1 assert_ends_the_case\n"
	  "ok 2 asserts_that_hold\n"
	  "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "t_setup() fails the case with what could not be done",
	  scene_setup, 1,
	  "TAP version 13\n1..1\n"
	  "# setup: open \"/nonexistent-f2-harness/x\": ENOENT\n"
	  "not ok 1 setup_fails_the_case\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "a subtest: indented, its plan, ok in the parent",
	  scene_subtest_pass, 0,
	  "TAP version 13\n1..2\n"
	  "    # Subtest: group 1\n    1..2\n"
	  "    ok 1 a\n    ok 2 b # SKIP why\n"
	  "ok 1 group 1\nok 2 after\n"
	  "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "a subtest with a failed case is not ok", scene_subtest_fail, 1,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: g\n    1..3\n"
	  "    not ok 1 a\n    ok 2 b\n"
	  "    # planned 3 cases, reported 2\n"
	  "not ok 1 g\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "a subtest whose plan does not match is not ok",
	  scene_subtest_plan, 1,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: g\n    1..2\n    ok 1 a\n"
	  "    # planned 2 cases, reported 1\n"
	  "not ok 1 g\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "a subtest whose cases all skipped is a SKIP", scene_subtest_skip, 0,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: g\n    1..2\n"
	  "    ok 1 a # SKIP one\n    ok 2 b # SKIP two\n"
	  "ok 1 g # SKIP every case of the subtest skipped (2)\n"
	  "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0\n" },
	{ "a subtest within a subtest", scene_nested, 0,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: outer\n    1..2\n"
	  "        # Subtest: inner\n        1..1\n        ok 1 deep\n"
	  "    ok 1 inner\n    ok 2 shallow\n"
	  "ok 1 outer\n"
	  "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "a subtest left open is ended, and fails", scene_left_open, 1,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: open\n    1..1\n    ok 1 a\n"
	  "    # a subtest was not ended\n"
	  "not ok 1 open\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "subtests past the depth limit fail, the levels stay in step",
	  scene_too_deep, 1,
	  "TAP version 13\n1..1\n"
	  "    # Subtest: level 0\n    1..1\n"
	  "        # Subtest: level 1\n        1..1\n"
	  "            # Subtest: level 2\n            1..1\n"
	  "                # Subtest: level 3\n                1..1\n"
	  "                # subtests nested deeper than 4\n"
	  "                ok 1 deepest\n"
	  "            not ok 1 level 3\n"
	  "        not ok 1 level 2\n"
	  "    not ok 1 level 1\n"
	  "not ok 1 level 0\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
	{ "every check is false when it fails, and says why",
	  scene_false, 1,
	  "TAP version 13\n1..1\n"
	  "# *harness_test.c:*: fails_with_enoent(): expected 0, got -1/ENOENT\n"
	  "# *harness_test.c:*: 0: expected -1/ENOENT, got 0\n"
	  "# *harness_test.c:*: 1: expected 2, got 1\n"
	  "# *harness_test.c:*: fstat: expected mode 0100600, got 010600\n"
	  "# *harness_test.c:*: lstat \"/nonexistent-f2-harness\": expected mode 00, got ENOENT\n"
	  "# *harness_test.c:*: lstat \"/\": expected ENOENT, it exists (mode 040*)\n"
	  "not ok 1 every_check_false\n"
	  "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n" },
};

/* the scene's output (at most @size - 1 bytes) and exit status, or -1 */
static int run_scene(const struct scene *sc, char *out, size_t size)
{
	size_t len = 0;
	ssize_t n;
	char c;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds)) {
		setup_error("pipe", sc->name, errno);
		return -1;
	}
	pid = t_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		memset(&t_state, 0, sizeof(t_state));
		sc->fn();
		exit(t_finish());
	}
	close(fds[1]);
	while (len < size - 1 &&
	       (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	/* (more than fits: read to its end, not to block the scene) */
	while (read(fds[0], &c, 1) > 0)
		;
	close(fds[0]);
	status = t_wait(pid);
	if (status < 0)
		return -1;
	if (!WIFEXITED(status)) {
		t_fail("the scene was killed by signal %d", WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

/* the first line of @got that does not match @want's, with both, or none */
static void compare_lines(const char *want, const char *got)
{
	char pattern[256], text[256];
	unsigned int line = 1;

	while (*want || *got) {
		size_t wl = strcspn(want, "\n"), gl = strcspn(got, "\n");

		snprintf(pattern, sizeof(pattern), "%.*s", (int)wl, want);
		snprintf(text, sizeof(text), "%.*s", (int)gl, got);
		if (!*want || !*got || fnmatch(pattern, text, 0)) {
			t_fail("line %u: expected \"%.*s\", got \"%.*s\"", line,
			       (int)wl, want, (int)gl, got);
			return;
		}
		want += wl + (want[wl] == '\n');
		got += gl + (got[gl] == '\n');
		line++;
	}
}

int main(void)
{
	static char out[8192];
	size_t i;
	int status;

	t_plan(ARRAY_SIZE(scenes));
	for (i = 0; i < ARRAY_SIZE(scenes); i++) {
		t_case_begin();
		status = run_scene(&scenes[i], out, sizeof(out));
		if (status >= 0) {
			compare_lines(scenes[i].out, out);
			if (status != scenes[i].status)
				t_fail("exit status %d, expected %d", status,
				       scenes[i].status);
		}
		t_case_end("%s", scenes[i].name);
	}
	return t_finish();
}
