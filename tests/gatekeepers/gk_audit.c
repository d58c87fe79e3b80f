// SPDX-License-Identifier: GPL-2.0
/*
 * gk_audit - the audit records of fchmodat2: with an exit rule on system
 * call 452 for this program's architecture (what "auditctl -a
 * always,exit -F arch=b64 -S 452", or arch=b32, adds), the SYSCALL and
 * PATH records of a successful call, a refused symlink (EOPNOTSUPP) and
 * an unprivileged EPERM must carry mainline's fields: arch, syscall,
 * success, exit, items; the path's name, mode and nametype.
 *
 * The program is the audit daemon while it runs (it registers its pid),
 * so the records come to it over the audit netlink socket; it enables
 * audit, adds the rule, forks the task that makes the calls (only tasks
 * forked after audit is enabled are audited), and takes the rule and the
 * registration away again. VM only: audit is machine-wide.
 *
 * Usage: gk_audit -d DIR. Root only.
 */
#include "gk.h"

#include <time.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#define NR_CALLS	3

#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH_ID		AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH_ID		AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH_ID		AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define ARCH_ID		AUDIT_ARCH_ARM
#else
#error "gk_audit: unknown architecture"
#endif

static int wfd = -1, nl = -1;
static char work[PATH_MAX / 2];
static struct audit_rule_data rule;

/* Send one audit request and wait for its acknowledgement: 0 or -errno. */
static int audit_request(int type, const void *data, size_t len)
{
	struct {
		struct nlmsghdr h;
		char data[sizeof(struct audit_rule_data) + 64];
	} req;
	char buf[8192];
	struct nlmsghdr *h;
	ssize_t n;
	int tries;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(len);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.h.nlmsg_seq = type;
	memcpy(NLMSG_DATA(&req.h), data, len);
	if (send(nl, &req, req.h.nlmsg_len, 0) < 0)
		return -errno;
	/* records may come first: skip them */
	for (tries = 0; tries < 100; tries++) {
		n = recv(nl, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
		}
	}
	return -ETIMEDOUT;
}

/* AUDIT_SET: enabled, the daemon's pid, no rate limit, a large backlog */
static int audit_set(unsigned int enabled, unsigned int pid)
{
	struct audit_status s;

	memset(&s, 0, sizeof(s));
	s.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID |
		 AUDIT_STATUS_RATE_LIMIT | AUDIT_STATUS_BACKLOG_LIMIT;
	s.enabled = enabled;
	s.pid = pid;
	s.rate_limit = 0;
	s.backlog_limit = 8192;
	return audit_request(AUDIT_SET, &s, sizeof(s));
}

struct record {
	unsigned long serial;
	char syscall[512];
	char path[512];
};

static struct record recs[16];
static unsigned int nrecs;

/* The record of @serial, made if new. */
static struct record *record(unsigned long serial)
{
	unsigned int i;

	for (i = 0; i < nrecs; i++)
		if (recs[i].serial == serial)
			return &recs[i];
	if (nrecs == ARRAY_SIZE(recs))
		return NULL;
	recs[nrecs].serial = serial;
	return &recs[nrecs++];
}

/* Collect SYSCALL and PATH records until @want events ended or 3 s. */
static void collect(unsigned int want)
{
	char buf[8192], *text, *colon;
	unsigned int ended = 0;
	struct pollfd p = { .fd = nl, .events = POLLIN };
	struct nlmsghdr *h;
	struct record *r;
	ssize_t n;
	size_t len;

	while (ended < want && poll(&p, 1, 3000) > 0) {
		n = recv(nl, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != AUDIT_SYSCALL &&
			    h->nlmsg_type != AUDIT_PATH &&
			    h->nlmsg_type != AUDIT_EOE)
				continue;
			text = NLMSG_DATA(h);
			len = h->nlmsg_len - NLMSG_HDRLEN;
			text[len < sizeof(buf) - 1 ? len : 0] = '\0';
			/* "audit(SECONDS.MILLIS:SERIAL): fields" */
			colon = strchr(text, ':');
			r = colon ? record(strtoul(colon + 1, NULL, 10)) : NULL;
			if (!r)
				continue;
			if (h->nlmsg_type == AUDIT_EOE)
				ended += !!strstr(r->syscall, " syscall=452 ");
			else if (h->nlmsg_type == AUDIT_SYSCALL)
				snprintf(r->syscall, sizeof(r->syscall), "%s",
					 text);
			else if (!r->path[0])
				snprintf(r->path, sizeof(r->path), "%s", text);
		}
	}
}

/* The value of " @key=" in @text, into @val. */
static const char *field(const char *text, const char *key, char *val,
			 size_t size)
{
	char pat[32];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(text, pat);
	if (!p) {
		snprintf(val, size, "(none)");
		return val;
	}
	p += strlen(pat);
	n = strcspn(p, " ");
	if (n >= size)
		n = size - 1;
	memcpy(val, p, n);
	val[n] = '\0';
	return val;
}

static void expect_field(int line, const char *what, const char *text,
			 const char *key, const char *want)
{
	char val[256];

	if (!strcmp(field(text, key, val, sizeof(val)), want))
		return;
	gk_failures++;
	diag("line %d: %s record: %s=%s, expected %s", line, what, key, val,
	     want);
}

#define EXPECT_FIELD(what, text, key, want) \
	expect_field(__LINE__, what, text, key, want)

/* The audited task: three calls, in the work directory, by name. */
static int calls(void)
{
	int bad = 0;
	pid_t pid;

	if (fchdir(wfd))
		return 3;
	if (sys_fchmodat2(AT_FDCWD, "afile", 0600, 0))
		bad |= 1;
	if (sys_fchmodat2(AT_FDCWD, "alink", 0600, NOFOLLOW) != -1 ||
	    errno != EOPNOTSUPP)
		bad |= 2;
	pid = fork();
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		_exit(sys_fchmodat2(AT_FDCWD, "rfile", 0600, 0) == -1 &&
		      errno == EPERM ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &bad, 0) != pid || bad)
		bad |= 4;
	return bad;
}

static void records_match_mainline(void)
{
	char arch[16];
	static const struct {
		const char *name, *success, *exit, *mode;
	} want[NR_CALLS] = {
		{ "\"afile\"", "yes", "0", "0100644" },
		{ "\"alink\"", "no", "-95", "0120777" },
		{ "\"rfile\"", "no", "-1", "0100644" },
	};
	unsigned int i, n;
	pid_t pid;
	int err;

	if (make_file(wfd, "afile", 0644) || make_link(wfd, "alink", "afile") ||
	    make_file(wfd, "rfile", 0644))
		return;
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (nl < 0) {
		setup_error("socket", "NETLINK_AUDIT");
		return;
	}
	err = audit_set(1, getpid());
	if (err == -ECONNREFUSED || err == -EPROTONOSUPPORT) {
		skip("no audit in this kernel (AUDIT_SET: %s)",
		     errno_name(-err));
		return;
	}
	if (err) {
		errno = -err;
		setup_error("AUDIT_SET", "enabled=1 pid");
		return;
	}
	rule.flags = AUDIT_FILTER_EXIT;
	rule.action = AUDIT_ALWAYS;
	rule.mask[__NR_fchmodat2 / 32] |= 1u << (__NR_fchmodat2 % 32);
	rule.field_count = 1;
	rule.fields[0] = AUDIT_ARCH;
	rule.values[0] = ARCH_ID;
	rule.fieldflags[0] = AUDIT_EQUAL;
	err = audit_request(AUDIT_ADD_RULE, &rule, sizeof(rule));
	if (err) {
		errno = -err;
		setup_error("AUDIT_ADD_RULE", "exit,always -S 452");
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(calls());
	expect_child_ok(pid);
	collect(NR_CALLS);
	/*
	 * Only the calls' events: once audit has been enabled, this program
	 * too may be audited, and its own configuration changes are.
	 */
	for (i = 0, n = 0; i < nrecs; i++)
		if (strstr(recs[i].syscall, " syscall=452 "))
			recs[n++] = recs[i];
	nrecs = n;
	EXPECT_EQ(nrecs, NR_CALLS);
	snprintf(arch, sizeof(arch), "%x", ARCH_ID);
	for (i = 0; i < nrecs && i < NR_CALLS; i++) {
		printf("# SYSCALL %s\n# PATH %s\n", recs[i].syscall,
		       recs[i].path);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "arch", arch);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "syscall", "452");
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "success",
			     want[i].success);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "exit", want[i].exit);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "items", "1");
		EXPECT_FIELD("PATH", recs[i].path, "item", "0");
		EXPECT_FIELD("PATH", recs[i].path, "name", want[i].name);
		EXPECT_FIELD("PATH", recs[i].path, "mode", want[i].mode);
		EXPECT_FIELD("PATH", recs[i].path, "nametype", "NORMAL");
	}
	EXPECT_MODE(wfd, "afile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "alink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "rfile", S_IFREG | 0644);
}

int main(int argc, char **argv)
{
	static const char * const files[] = { "afile", "alink", "rfile", NULL };
	static const struct gk_case cases[] = {
		GK_CASE(records_match_mainline),
	};

	wfd = gk_root_begin(argc, argv, ARRAY_SIZE(cases), "audit", work,
			    sizeof(work));
	gk_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	if (nl >= 0) {
		if (rule.field_count)
			audit_request(AUDIT_DEL_RULE, &rule, sizeof(rule));
		audit_set(0, 0);
		close(nl);
	}
	gk_remove_workdir(wfd, work, files, NULL);
	return gk_end();
}
