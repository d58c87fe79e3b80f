// SPDX-License-Identifier: GPL-2.0
/*
 * subsys_audit - the audit records of fchmodat2: with an exit rule on system
 * call 452 for this program's architecture (what "auditctl -a
 * always,exit -F arch=b64 -S 452", or arch=b32, adds), the SYSCALL and
 * PATH records of a successful call, a refused symlink (EOPNOTSUPP) and
 * an unprivileged EPERM must carry mainline's fields: arch, syscall,
 * success, exit, items; the path's name, mode and nametype.
 *
 * File watches and permission filters, as an administrator writes them
 * (CIS and STIG rule sets watch /etc/shadow with "-p wa"): what auditctl
 * sends for "-w FILE -p a", "-w FILE -p wa", "-w FILE -p w", "-w DIR -p
 * a" (a directory watch is a tree rule, AUDIT_DIR) and "-a always,exit
 * -F arch=ARCH -S all -F perm=a". Whether a call is logged depends on the
 * kernel's audit classes: 452 is in the "change attributes" class since
 * mainline added fchmodat2, and the module must put it there too. Each
 * rule sees the same calls (fchmodat2 and fchmodat on the watched file,
 * fchmodat2 on a file outside the watch, an unprivileged fchmodat2 that
 * fails with EPERM, fchmodat2 in the watched directory); the records must
 * be exactly those of mainline, in order, naming the file as the caller
 * did.
 *
 * The program is the audit daemon while it runs (it registers its pid),
 * so the records come to it over the audit netlink socket; it enables
 * audit, adds the rule, forks the task that makes the calls (only tasks
 * forked after audit is enabled are audited), and takes the rule and the
 * registration away again. VM only: audit is machine-wide.
 *
 * "subsys_audit -d DIR nomod" checks a kernel where 452 is ENOSYS (5.10 and
 * 6.1 before the module is loaded, and after it is unloaded): 452 must
 * not be in the change attributes class there, so a "perm=a" rule logs
 * fchmodat and not the failed 452 (the module takes 452 out of the class
 * again when it goes).
 *
 * "subsys_audit -d DIR x32" (x86_64, booted with syscall.x32=y) makes every
 * call with x32's numbers (452 and fchmodat with __X32_SYSCALL_BIT, as an
 * x32 program does, arch x86_64): audit's rule masks and class tables
 * hold only numbers below 2048, so no rule matches them, on 6.12 and
 * with the module alike (tests/guest/x32.sh runs it on both): the calls
 * are served and no case logs them. Each case ends with 64-bit calls as
 * controls, which the same rule must log (the rule is live).
 *
 * Usage: subsys_audit -d DIR [nomod|x32]. Root only.
 */
#include "subsys.h"

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
#error "subsys_audit: unknown architecture"
#endif

static int wfd = -1, nl = -1;
/* __X32_SYSCALL_BIT in "x32" mode, else 0: or-ed into every number */
static long xbit;

static long a_fchmodat2(const char *path, unsigned int mode, unsigned int flags)
{
	return syscall(__NR_fchmodat2 | xbit, AT_FDCWD, path, mode, flags);
}

static long a_fchmodat(const char *path, unsigned int mode)
{
	return syscall(SYS_fchmodat | xbit, AT_FDCWD, path, mode);
}
static char work[PATH_MAX / 2];
static struct audit_rule_data rule;

/* Send one audit request and wait for its acknowledgement: 0 or -errno. */
static int audit_request(int type, const void *data, size_t len)
{
	struct {
		struct nlmsghdr h;
		char data[sizeof(struct audit_rule_data) + PATH_MAX];
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

/* Whether a SYSCALL record is of fchmodat2 or fchmodat (this ABI's). */
static int chmod_event(const char *syscall_rec)
{
	char pat[4][32];
	unsigned int i;

	/* in x32 mode, a record of either numbering would count */
	snprintf(pat[0], sizeof(pat[0]), " syscall=%d ", __NR_fchmodat2);
	snprintf(pat[1], sizeof(pat[1]), " syscall=%d ", SYS_fchmodat);
	snprintf(pat[2], sizeof(pat[2]), " syscall=%ld ", __NR_fchmodat2 | xbit);
	snprintf(pat[3], sizeof(pat[3]), " syscall=%ld ", SYS_fchmodat | xbit);
	for (i = 0; i < 4; i++)
		if (strstr(syscall_rec, pat[i]))
			return 1;
	return 0;
}

/*
 * Collect SYSCALL and PATH records until @want fchmodat2 or fchmodat
 * events ended, or none came for 3 s (1 s when none is expected), then
 * keep only those events, in order.
 */
static void collect(unsigned int want)
{
	char buf[8192], *text, *colon;
	unsigned int ended = 0;
	struct pollfd p = { .fd = nl, .events = POLLIN };
	struct nlmsghdr *h;
	struct record *r;
	unsigned int i, n;
	size_t len;
	ssize_t got;

	nrecs = 0;
	memset(recs, 0, sizeof(recs));
	while (ended < want && poll(&p, 1, want ? 3000 : 1000) > 0) {
		got = recv(nl, buf, sizeof(buf) - 1, 0);
		if (got <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, got);
		     h = NLMSG_NEXT(h, got)) {
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
				ended += !!chmod_event(r->syscall);
			else if (h->nlmsg_type == AUDIT_SYSCALL)
				snprintf(r->syscall, sizeof(r->syscall), "%s",
					 text);
			else if (!r->path[0])
				snprintf(r->path, sizeof(r->path), "%s", text);
		}
	}
	/*
	 * Only the calls' events: once audit has been enabled, this program
	 * too may be audited, and its own configuration changes are.
	 */
	for (i = 0, n = 0; i < nrecs; i++)
		if (chmod_event(recs[i].syscall))
			recs[n++] = recs[i];
	nrecs = n;
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
	t_fail("line %d: %s record: %s=%s, expected %s", line, what, key, val,
	       want);
}

#define EXPECT_FIELD(what, text, key, want) \
	expect_field(__LINE__, what, text, key, want)

/* One event a watch case expects: system call, name, result, prior mode */
struct want_event {
	int fchmodat2;	/* 1: 452, 0: this ABI's fchmodat */
	const char *name, *success, *exit, *mode;
};

#define EV_WFILE2	{ 1, "\"wfile\"", "yes", "0", "0100644" }
#define EV_WFILE1	{ 0, "\"wfile\"", "yes", "0", "0100600" }
#define EV_OFILE2	{ 1, "\"ofile\"", "yes", "0", "0100644" }
#define EV_WFILE2_EPERM	{ 1, "\"wfile\"", "no", "-1", "0100640" }
#define EV_DFILE2	{ 1, "\"wdir/dfile\"", "yes", "0", "0100644" }
/* x32 mode: only the 64-bit controls at the end are logged */
#define EV_WFILE2_X32	{ 1, "\"wfile\"", "yes", "0", "0100640" }
#define EV_DFILE2_X32	{ 1, "\"wdir/dfile\"", "yes", "0", "0100600" }

/*
 * The events collected: printed, then checked against @want (@n of them),
 * in order, field by field, as mainline logs them.
 */
static void expect_events(const struct want_event *want, unsigned int n)
{
	char arch[16], nr[16];
	unsigned int i;

	EXPECT_EQ(nrecs, n);
	snprintf(arch, sizeof(arch), "%x", ARCH_ID);
	for (i = 0; i < nrecs; i++)
		printf("# SYSCALL %s\n# PATH %s\n", recs[i].syscall,
		       recs[i].path);
	for (i = 0; i < nrecs && i < n; i++) {
		snprintf(nr, sizeof(nr), "%d",
			 want[i].fchmodat2 ? 452 : SYS_fchmodat);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "arch", arch);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "syscall", nr);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "success",
			     want[i].success);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "exit", want[i].exit);
		EXPECT_FIELD("SYSCALL", recs[i].syscall, "items", "1");
		EXPECT_FIELD("PATH", recs[i].path, "item", "0");
		EXPECT_FIELD("PATH", recs[i].path, "name", want[i].name);
		EXPECT_FIELD("PATH", recs[i].path, "mode", want[i].mode);
		EXPECT_FIELD("PATH", recs[i].path, "nametype", "NORMAL");
	}
}

/* The audited task: three calls, in the work directory, by name. */
static int calls(void)
{
	int bad = 0;
	pid_t pid;

	if (fchdir(wfd))
		return 3;
	if (a_fchmodat2("afile", 0600, 0))
		bad |= 1;
	if (a_fchmodat2("alink", 0600, NOFOLLOW) != -1 ||
	    errno != EOPNOTSUPP)
		bad |= 2;
	pid = fork();
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		_exit(a_fchmodat2("rfile", 0600, 0) == -1 &&
		      errno == EPERM ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &bad, 0) != pid || bad)
		bad |= 4;
	/* x32 mode: the control, a 64-bit call the rule must log */
	if (xbit && sys_fchmodat2(AT_FDCWD, "afile", 0600, 0))
		bad |= 8;
	return bad;
}

/*
 * Audit enabled, with this program as its daemon: 0; or the case skips
 * (no audit in the kernel) or fails, and -1.
 */
static int audit_open(void)
{
	int err;

	if (nl >= 0)
		return 0;
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (nl < 0) {
		setup_error("socket", "NETLINK_AUDIT", errno);
		return -1;
	}
	err = audit_set(1, getpid());
	if (err == -ECONNREFUSED || err == -EPROTONOSUPPORT) {
		t_skip("no audit in this kernel (AUDIT_SET: %s)",
		       errno_name(-err));
		close(nl);
		nl = -1;
		return -1;
	}
	if (err) {
		errno = -err;
		setup_error("AUDIT_SET", "enabled=1 pid", errno);
		close(nl);
		nl = -1;
		return -1;
	}
	return 0;
}

static void records_match_mainline(void)
{
	static const struct want_event want[NR_CALLS] = {
		{ 1, "\"afile\"", "yes", "0", "0100644" },
		{ 1, "\"alink\"", "no", "-95", "0120777" },
		{ 1, "\"rfile\"", "no", "-1", "0100644" },
	};
	/* x32 mode: only the control is logged (afile is 0600 by then) */
	static const struct want_event want_x32 = {
		1, "\"afile\"", "yes", "0", "0100600"
	};
	pid_t pid;
	int err;

	if (make_file(wfd, "afile", 0644) || make_link(wfd, "alink", "afile") ||
	    make_file(wfd, "rfile", 0644))
		return;
	if (audit_open())
		return;
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
		setup_error("AUDIT_ADD_RULE", "exit,always -S 452", errno);
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(calls());
	t_expect_child(pid);
	if (xbit) {
		collect(1);
		expect_events(&want_x32, 1);
	} else {
		collect(NR_CALLS);
		expect_events(want, NR_CALLS);
	}
	EXPECT_MODE(wfd, "afile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "alink", S_IFLNK | 0777);
	EXPECT_MODE(wfd, "rfile", S_IFREG | 0644);
	audit_request(AUDIT_DEL_RULE, &rule, sizeof(rule));
	memset(&rule, 0, sizeof(rule));
}

/*
 * The calls every watch case makes, in the work directory, by relative
 * name: fchmodat2 and fchmodat on wfile, fchmodat2 on ofile (outside a
 * file watch), an unprivileged fchmodat2 on wfile (EPERM), fchmodat2 on
 * wdir/dfile (inside the directory watch). Exit status 0: each call
 * returned what mainline returns.
 */
static int watch_calls(void)
{
	int bad = 0;
	pid_t pid;

	if (fchdir(wfd))
		return 3;
	if (a_fchmodat2("wfile", 0600, 0))
		bad |= 1;
	if (a_fchmodat("wfile", 0640))
		bad |= 2;
	if (a_fchmodat2("ofile", 0600, 0))
		bad |= 4;
	pid = fork();
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		_exit(a_fchmodat2("wfile", 0600, 0) == -1 &&
		      errno == EPERM ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &bad, 0) != pid || bad)
		bad |= 8;
	if (a_fchmodat2("wdir/dfile", 0600, 0))
		bad |= 16;
	/* x32 mode: the controls, 64-bit calls the rules must log */
	if (xbit && (sys_fchmodat2(AT_FDCWD, "wfile", 0640, 0) ||
		     sys_fchmodat2(AT_FDCWD, "wdir/dfile", 0600, 0)))
		bad |= 32;
	return bad;
}

/*
 * Add a rule as auditctl does: exit filter, every system call; @type
 * AUDIT_WATCH or AUDIT_DIR on @path below the work directory, or 0 for
 * none (an "arch" field instead); then a "perm" field of @perm. Make the
 * calls and check the events against @want (@n of them), in order.
 */
static void watch_case(int type, const char *path, unsigned int perm,
		       const struct want_event *want, unsigned int n)
{
	static char buf[sizeof(struct audit_rule_data) + PATH_MAX];
	struct audit_rule_data *r = (struct audit_rule_data *)buf;
	char full[PATH_MAX];
	unsigned int f = 0;
	size_t len;
	pid_t pid;
	int err;

	if (make_file(wfd, "wfile", 0644) || make_file(wfd, "ofile", 0644))
		return;
	if (mkdirat(wfd, "wdir", 0755) && errno != EEXIST) {
		setup_error("mkdir", "wdir", errno);
		return;
	}
	if (make_file(wfd, "wdir/dfile", 0644) || audit_open())
		return;
	memset(buf, 0, sizeof(buf));
	r->flags = AUDIT_FILTER_EXIT;
	r->action = AUDIT_ALWAYS;
	memset(r->mask, 0xff, sizeof(r->mask));	/* -S all */
	if (type) {
		len = (size_t)snprintf(full, sizeof(full), "%s/%s", work, path);
		r->fields[f] = type;
		r->values[f] = len;
		r->fieldflags[f++] = AUDIT_EQUAL;
		memcpy(r->buf, full, len);
		r->buflen = len;
	} else {
		r->fields[f] = AUDIT_ARCH;
		r->values[f] = ARCH_ID;
		r->fieldflags[f++] = AUDIT_EQUAL;
	}
	r->fields[f] = AUDIT_PERM;
	r->values[f] = perm;
	r->fieldflags[f++] = AUDIT_EQUAL;
	r->field_count = f;
	err = audit_request(AUDIT_ADD_RULE, r, sizeof(*r) + r->buflen);
	if (err) {
		errno = -err;
		setup_error("AUDIT_ADD_RULE", type ? full : "perm", errno);
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(watch_calls());
	t_expect_child(pid);
	collect(n);
	audit_request(AUDIT_DEL_RULE, r, sizeof(*r) + r->buflen);
	expect_events(want, n);
	EXPECT_MODE(wfd, "wfile", S_IFREG | 0640);
	EXPECT_MODE(wfd, "ofile", S_IFREG | 0600);
	EXPECT_MODE(wfd, "wdir/dfile", S_IFREG | 0600);
}

/* auditctl -w WORK/wfile -p a: fchmodat2 is logged as fchmodat is */
static void watch_file_perm_a_logs_fchmodat2(void)
{
	static const struct want_event want[] = {
		EV_WFILE2, EV_WFILE1, EV_WFILE2_EPERM,
	};
	static const struct want_event want_x32[] = { EV_WFILE2_X32 };

	if (xbit)
		watch_case(AUDIT_WATCH, "wfile", AUDIT_PERM_ATTR, want_x32, 1);
	else
		watch_case(AUDIT_WATCH, "wfile", AUDIT_PERM_ATTR, want,
			   ARRAY_SIZE(want));
}

/* auditctl -w WORK/wfile -p wa (the CIS/STIG rules' form) */
static void watch_file_perm_wa_logs_fchmodat2(void)
{
	static const struct want_event want[] = {
		EV_WFILE2, EV_WFILE1, EV_WFILE2_EPERM,
	};
	static const struct want_event want_x32[] = { EV_WFILE2_X32 };

	if (xbit)
		watch_case(AUDIT_WATCH, "wfile",
			   AUDIT_PERM_WRITE | AUDIT_PERM_ATTR, want_x32, 1);
	else
		watch_case(AUDIT_WATCH, "wfile",
			   AUDIT_PERM_WRITE | AUDIT_PERM_ATTR, want,
			   ARRAY_SIZE(want));
}

/* auditctl -w WORK/wfile -p w: neither call is in the write class */
static void watch_file_perm_w_logs_neither(void)
{
	watch_case(AUDIT_WATCH, "wfile", AUDIT_PERM_WRITE, NULL, 0);
}

/* auditctl -w WORK/wdir -p a: a tree rule; only the call inside it */
static void watch_dir_perm_a_logs_fchmodat2(void)
{
	static const struct want_event want[] = { EV_DFILE2 };
	static const struct want_event want_x32[] = { EV_DFILE2_X32 };

	watch_case(AUDIT_DIR, "wdir", AUDIT_PERM_ATTR, xbit ? want_x32 : want, 1);
}

/* auditctl -a always,exit -F arch=ARCH -S all -F perm=a: every call */
static void rule_perm_a_logs_fchmodat2(void)
{
	static const struct want_event want[] = {
		EV_WFILE2, EV_WFILE1, EV_OFILE2, EV_WFILE2_EPERM, EV_DFILE2,
	};
	static const struct want_event want_x32[] = {
		EV_WFILE2_X32, EV_DFILE2_X32,
	};

	if (xbit)
		watch_case(0, NULL, AUDIT_PERM_ATTR, want_x32, 2);
	else
		watch_case(0, NULL, AUDIT_PERM_ATTR, want, ARRAY_SIZE(want));
}

/* No fchmodat2 (ENOSYS): a "perm=a" rule logs fchmodat, not 452. */
static void nomod_452_not_in_change_attributes_class(void)
{
	static char buf[sizeof(struct audit_rule_data)];
	struct audit_rule_data *r = (struct audit_rule_data *)buf;
	unsigned int i;
	char nr[16];
	pid_t pid;
	int err;

	if (make_file(wfd, "wfile", 0644) || audit_open())
		return;
	r->flags = AUDIT_FILTER_EXIT;
	r->action = AUDIT_ALWAYS;
	memset(r->mask, 0xff, sizeof(r->mask));
	r->fields[0] = AUDIT_ARCH;
	r->values[0] = ARCH_ID;
	r->fieldflags[0] = AUDIT_EQUAL;
	r->fields[1] = AUDIT_PERM;
	r->values[1] = AUDIT_PERM_ATTR;
	r->fieldflags[1] = AUDIT_EQUAL;
	r->field_count = 2;
	err = audit_request(AUDIT_ADD_RULE, r, sizeof(*r));
	if (err) {
		errno = -err;
		setup_error("AUDIT_ADD_RULE", "perm", errno);
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (fchdir(wfd))
			_exit(3);
		if (sys_fchmodat2(AT_FDCWD, "wfile", 0600, 0) != -1 ||
		    errno != ENOSYS)
			_exit(1);
		_exit(syscall(SYS_fchmodat, AT_FDCWD, "wfile", 0640) ? 2 : 0);
	}
	t_expect_child(pid);
	/* the 452 event, if any, comes first: two at most are waited for */
	collect(2);
	audit_request(AUDIT_DEL_RULE, r, sizeof(*r));
	for (i = 0; i < nrecs; i++)
		printf("# SYSCALL %s\n# PATH %s\n", recs[i].syscall,
		       recs[i].path);
	EXPECT_EQ(nrecs, 1);
	snprintf(nr, sizeof(nr), "%d", SYS_fchmodat);
	if (nrecs >= 1)
		EXPECT_FIELD("SYSCALL", recs[0].syscall, "syscall", nr);
	EXPECT_MODE(wfd, "wfile", S_IFREG | 0640);
}

int main(int argc, char **argv)
{
	static const char * const files[] = {
		"afile", "alink", "rfile", "wfile", "ofile", "wdir/dfile", NULL
	};
	static const char * const dirs[] = { "wdir", NULL };
	static const struct subsys_case cases[] = {
		CASE(records_match_mainline),
		CASE(watch_file_perm_a_logs_fchmodat2),
		CASE(watch_file_perm_wa_logs_fchmodat2),
		CASE(watch_file_perm_w_logs_neither),
		CASE(watch_dir_perm_a_logs_fchmodat2),
		CASE(rule_perm_a_logs_fchmodat2),
	};

	static const struct subsys_case nomod_cases[] = {
		CASE(nomod_452_not_in_change_attributes_class),
	};
	int nomod = 0, i;

	/* "nomod" or "x32", after the options subsys_root_begin() reads */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "nomod"))
			nomod = 1;
		if (!strcmp(argv[i], "x32")) {
#if defined(__x86_64__) && !defined(__ILP32__)
			xbit = 0x40000000;
#else
			fprintf(stderr, "%s: x32 is for the x86_64 program\n",
				argv[0]);
			return 2;
#endif
		}
	}
	wfd = subsys_root_begin(argc, argv, nomod ? ARRAY_SIZE(nomod_cases) :
				ARRAY_SIZE(cases), "audit", work, sizeof(work));
	if (nomod)
		subsys_run_cases(nomod_cases, ARRAY_SIZE(nomod_cases), NULL,
				 wfd);
	else
		subsys_run_cases(cases, ARRAY_SIZE(cases), NULL, wfd);
	if (nl >= 0) {
		audit_set(0, 0);
		close(nl);
	}
	subsys_remove_workdir(wfd, work, files, dirs);
	return t_finish();
}
