// SPDX-License-Identifier: GPL-2.0
/*
 * fchmodat2ctl - tell whether this kernel has fchmodat2 (system call 452),
 * natively or through the fchmodat2 module; load and unload the module
 * through libkmod; check that 452 behaves. See fchmodat2ctl(8).
 *
 * Inside, functions return a negative errno; exit codes are chosen only
 * in main() and in the verbs' return values (enum f2_exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <libkmod.h>
#include "fchmodat2.h"

#ifndef F2_VERSION
#define F2_VERSION	"unknown"
#endif

#define F2_MODULE	"fchmodat2"
#define F2_SYSFS	"/sys/module/" F2_MODULE "/"
#define F2_VALID_FLAGS	(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes: scripts rely on them, fchmodat2ctl(8) documents them. */
enum f2_exit {
	/* status: 452 works, native or served (the text tells which) */
	F2_EXIT_OK = 0,		/* ...; other verbs: done */
	F2_EXIT_FAILURE = 1,	/* the verb failed, or check misbehaved */
	F2_EXIT_USAGE = 2,
	/* 3 is not used: LSB status and monitoring read it as "not running" */
	F2_EXIT_ABSENT = 4,	/* not available (ENOSYS); module loadable */
	F2_EXIT_NO_MODULE = 5,	/* status: not available, no loadable module */
	F2_EXIT_UNKNOWN = 6,	/* 452 neither works nor is ENOSYS */
};

enum f2_state { F2_NATIVE, F2_SERVED, F2_ABSENT, F2_BLOCKED };

static const char * const f2_state_names[] = {
	[F2_NATIVE] = "native",
	[F2_SERVED] = "module",
	[F2_ABSENT] = "absent",
	[F2_BLOCKED] = "unknown",
};

struct f2_loaded {
	bool loaded;
	bool takeover;
	int initstate;			/* KMOD_MODULE_* or -errno */
	int refcnt;
	char version[64];
	char mechanism[128];
	char served[32];
	char refused[32];
};

/* how module/placeholder.c's description begins */
#define F2_PLACEHOLDER "fchmodat2 placeholder: "

struct f2_installed {
	bool found;
	bool for_this_kernel;
	bool signed_;
	bool loadable;
	bool placeholder;		/* what DKMS builds where unsupported */
	char path[512];
	char version[64];
	char vermagic_release[128];
	char why_not[320];		/* when !loadable */
};

struct f2_status {
	char release[128];
	enum f2_state state;
	int probe_err;			/* errno of the probe call */
	char lockdown[32];		/* "" when unknown */
	bool sig_enforce;
	struct f2_loaded mod;
	struct f2_installed inst;
};

static struct {
	bool json;
	bool verbose;
	bool quiet;
} opt;

static struct kmod_ctx *ctx;

static const char *errno_name(int err)
{
	static char buf[16];

	switch (err) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EEXIST: return "EEXIST";
	case EBUSY: return "EBUSY";
	case ENOEXEC: return "ENOEXEC";
	case EKEYREJECTED: return "EKEYREJECTED";
	case ENOKEY: return "ENOKEY";
	case EROFS: return "EROFS";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static void f2_kmod_log(void *data, int priority, const char *file, int line,
			const char *fn, const char *format, va_list args)
{
	if (!opt.verbose)
		return;
	fputs("fchmodat2ctl: libkmod: ", stderr);
	vfprintf(stderr, format, args);
}

/* ----------------------------------------------------------------------
 * What the kernel says
 */

/*
 * Invalid flags: a kernel with fchmodat2 says EINVAL before any lookup,
 * and changes nothing; one without says ENOSYS. Anything else (EPERM from
 * a seccomp profile that does not know 452) tells neither.
 */
static int f2_probe(void)
{
	if (!fchmodat2(AT_FDCWD, "", 0, ~F2_VALID_FLAGS))
		return -EIO;
	return -errno;
}

/* A sysfs attribute's first line, or -errno. */
static int f2_read_line(const char *path, char *buf, size_t size)
{
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "none [integrity] confidentiality" -> "integrity" */
static void f2_read_lockdown(char *buf, size_t size)
{
	char line[128], *open, *close;

	buf[0] = '\0';
	if (f2_read_line("/sys/kernel/security/lockdown", line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (close) {
		*close = '\0';
		snprintf(buf, size, "%s", open + 1);
	}
}

static bool f2_lockdown_active(const struct f2_status *s)
{
	return s->lockdown[0] && strcmp(s->lockdown, "none");
}

static int f2_new_module(struct kmod_module **mod)
{
	return kmod_module_new_from_name(ctx, F2_MODULE, mod);
}

static void f2_read_loaded(struct f2_loaded *m)
{
	struct kmod_module *mod;
	char buf[8];

	memset(m, 0, sizeof(*m));
	m->initstate = -ENOENT;
	if (f2_new_module(&mod) == 0) {
		m->initstate = kmod_module_get_initstate(mod);
		if (m->initstate >= 0)
			m->refcnt = kmod_module_get_refcnt(mod);
		kmod_module_unref(mod);
	}
	m->loaded = m->initstate == KMOD_MODULE_LIVE;
	if (!m->loaded)
		return;
	f2_read_line(F2_SYSFS "version", m->version, sizeof(m->version));
	f2_read_line(F2_SYSFS "mechanism", m->mechanism, sizeof(m->mechanism));
	f2_read_line(F2_SYSFS "calls_served", m->served, sizeof(m->served));
	f2_read_line(F2_SYSFS "calls_refused", m->refused, sizeof(m->refused));
	if (!f2_read_line(F2_SYSFS "parameters/takeover", buf, sizeof(buf)))
		m->takeover = buf[0] == 'Y';
}

/* The module modprobe would load, from modules.dep, or -ENOENT. */
static int f2_lookup(struct kmod_module **mod)
{
	struct kmod_list *list = NULL, *l;
	int err;

	*mod = NULL;
	err = kmod_module_new_from_lookup(ctx, F2_MODULE, &list);
	if (err < 0)
		return err;
	kmod_list_foreach(l, list) {
		*mod = kmod_module_get_module(l);
		break;
	}
	kmod_module_unref_list(list);
	return *mod ? 0 : -ENOENT;
}

static void f2_read_installed(struct f2_status *s)
{
	struct f2_installed *in = &s->inst;
	struct kmod_list *info = NULL, *l;
	struct kmod_module *mod;
	const char *path;
	char placeholder[256] = "";

	memset(in, 0, sizeof(*in));
	if (f2_lookup(&mod)) {
		snprintf(in->why_not, sizeof(in->why_not),
			 "not installed for this kernel");
		return;
	}
	path = kmod_module_get_path(mod);
	if (!path) {
		/* a builtin fchmodat2 would be news: report it as such */
		snprintf(in->why_not, sizeof(in->why_not),
			 "built into the kernel");
		kmod_module_unref(mod);
		return;
	}
	in->found = true;
	snprintf(in->path, sizeof(in->path), "%s", path);
	if (kmod_module_get_info(mod, &info) >= 0) {
		kmod_list_foreach(l, info) {
			const char *key = kmod_module_info_get_key(l);
			const char *val = kmod_module_info_get_value(l);

			if (!val)
				continue;
			if (!strcmp(key, "version"))
				snprintf(in->version, sizeof(in->version),
					 "%s", val);
			else if (!strcmp(key, "vermagic"))
				snprintf(in->vermagic_release,
					 sizeof(in->vermagic_release), "%.*s",
					 (int)strcspn(val, " "), val);
			else if (!strcmp(key, "sig_id") ||
				 !strcmp(key, "signer"))
				in->signed_ = true;
			else if (!strcmp(key, "description") &&
				 !strncmp(val, F2_PLACEHOLDER, strlen(F2_PLACEHOLDER)))
				snprintf(placeholder, sizeof(placeholder), "%s",
					 val + strlen(F2_PLACEHOLDER));
		}
		kmod_module_info_free_list(info);
	}
	kmod_module_unref(mod);

	in->for_this_kernel = !strcmp(in->vermagic_release, s->release);
	in->placeholder = placeholder[0];
	if (in->placeholder && s->state == F2_NATIVE)
		snprintf(in->why_not, sizeof(in->why_not),
			 "not needed: the kernel has fchmodat2 (DKMS built a placeholder that never loads)");
	else if (in->placeholder)
		snprintf(in->why_not, sizeof(in->why_not),
			 "this kernel is not supported: %s (DKMS built a placeholder that never loads)",
			 placeholder);
	else if (!in->for_this_kernel)
		snprintf(in->why_not, sizeof(in->why_not),
			 "built for another kernel (%s)",
			 in->vermagic_release[0] ? in->vermagic_release :
			 "no vermagic");
	else if (!in->signed_ && s->sig_enforce)
		snprintf(in->why_not, sizeof(in->why_not),
			 "unsigned, and the kernel enforces module signatures");
	else if (!in->signed_ && f2_lockdown_active(s))
		snprintf(in->why_not, sizeof(in->why_not),
			 "unsigned, and the kernel is locked down (%s)",
			 s->lockdown);
	else if (s->state == F2_NATIVE)
		snprintf(in->why_not, sizeof(in->why_not),
			 "not needed: the kernel has fchmodat2 (the module refuses to load)");
	else
		in->loadable = true;
}

static void f2_read_status(struct f2_status *s)
{
	struct utsname u;
	char buf[8];

	memset(s, 0, sizeof(*s));
	if (!uname(&u))
		snprintf(s->release, sizeof(s->release), "%s", u.release);
	f2_read_lockdown(s->lockdown, sizeof(s->lockdown));
	if (!f2_read_line("/sys/module/module/parameters/sig_enforce", buf,
			  sizeof(buf)))
		s->sig_enforce = buf[0] == 'Y';
	f2_read_loaded(&s->mod);

	s->probe_err = -f2_probe();
	if (s->probe_err == EINVAL)
		s->state = s->mod.loaded ? F2_SERVED : F2_NATIVE;
	else if (s->probe_err == ENOSYS)
		s->state = F2_ABSENT;
	else
		s->state = F2_BLOCKED;
	f2_read_installed(s);
}

static enum f2_exit f2_status_exit(const struct f2_status *s)
{
	switch (s->state) {
	case F2_NATIVE:
	case F2_SERVED:
		return F2_EXIT_OK;
	case F2_ABSENT:
		return s->inst.loadable ? F2_EXIT_ABSENT : F2_EXIT_NO_MODULE;
	default:
		return F2_EXIT_UNKNOWN;
	}
}

/* ----------------------------------------------------------------------
 * status
 */

static void json_str(const char *key, const char *val, bool comma)
{
	const char *p;

	printf("\"%s\": \"", key);
	for (p = val; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	printf("\"%s", comma ? ", " : "");
}

static void json_raw(const char *key, const char *val, bool comma)
{
	printf("\"%s\": %s%s", key, val[0] ? val : "null", comma ? ", " : "");
}

static void json_bool(const char *key, bool val, bool comma)
{
	json_raw(key, val ? "true" : "false", comma);
}

static void f2_print_json(const struct f2_status *s, enum f2_exit code)
{
	const struct f2_loaded *m = &s->mod;
	const struct f2_installed *in = &s->inst;
	char num[16];

	printf("{");
	json_str("kernel", s->release, true);
	snprintf(num, sizeof(num), "%d", __NR_fchmodat2);
	json_raw("syscall", num, true);
	json_str("state", f2_state_names[s->state], true);
	json_str("probe", errno_name(s->probe_err), true);
	json_str("lockdown", s->lockdown[0] ? s->lockdown : "unknown", true);
	json_bool("sig_enforce", s->sig_enforce, true);

	printf("\"module\": {");
	json_bool("loaded", m->loaded, m->loaded);
	if (m->loaded) {
		json_str("version", m->version, true);
		json_str("mechanism", m->mechanism, true);
		json_raw("calls_served", m->served, true);
		json_raw("calls_refused", m->refused, true);
		snprintf(num, sizeof(num), "%d", m->refcnt);
		json_raw("refcnt", num, true);
		json_bool("takeover", m->takeover, false);
	}
	printf("}, ");

	printf("\"installed\": {");
	json_bool("found", in->found, true);
	if (in->found) {
		json_str("path", in->path, true);
		json_str("version", in->version, true);
		json_str("vermagic", in->vermagic_release, true);
		json_bool("signed", in->signed_, true);
		json_bool("placeholder", in->placeholder, true);
	}
	json_bool("loadable", in->loadable, !in->loadable);
	if (!in->loadable)
		json_str("reason", in->why_not, false);
	printf("}, ");

	snprintf(num, sizeof(num), "%d", code);
	json_raw("exit", num, false);
	printf("}\n");
}

static void f2_print_human(const struct f2_status *s)
{
	const struct f2_loaded *m = &s->mod;
	const struct f2_installed *in = &s->inst;

	printf("fchmodat2 (system call %d) on Linux %s: ", __NR_fchmodat2,
	       s->release);
	switch (s->state) {
	case F2_NATIVE:
		printf("native: the kernel has it, no module is needed\n");
		break;
	case F2_SERVED:
		printf("served by the fchmodat2 module%s\n",
		       m->takeover ? " (takeover of the native one: evaluation)" :
		       "");
		break;
	case F2_ABSENT:
		printf("not available (ENOSYS)\n");
		break;
	default:
		printf("cannot tell: the probe got %s, not EINVAL or ENOSYS (a seccomp filter?)\n",
		       errno_name(s->probe_err));
		break;
	}

	if (m->loaded)
		printf("  module:    loaded, version %s, through %s\n"
		       "  calls:     %s served, %s refused\n",
		       m->version, m->mechanism, m->served, m->refused);
	else if (m->initstate >= 0)
		printf("  module:    %s\n", m->initstate == KMOD_MODULE_COMING ?
		       "loading" : m->initstate == KMOD_MODULE_GOING ?
		       "unloading" : "built in");
	else
		printf("  module:    not loaded\n");

	if (in->found)
		printf("  installed: %s (version %s, %s, %s)\n", in->path,
		       in->version[0] ? in->version : "unknown",
		       in->for_this_kernel ? "built for this kernel" :
		       "built for another kernel",
		       in->signed_ ? "signed" : "unsigned");
	else
		printf("  installed: no\n");
	if (m->loaded)
		return;
	if (in->loadable)
		printf("  loadable:  yes: \"fchmodat2ctl load\" loads it\n");
	else
		printf("  loadable:  no: %s\n", in->why_not);
}

static int f2_cmd_status(void)
{
	struct f2_status s;
	enum f2_exit code;

	f2_read_status(&s);
	code = f2_status_exit(&s);
	if (opt.json)
		f2_print_json(&s, code);
	else
		f2_print_human(&s);
	return code;
}

/* ----------------------------------------------------------------------
 * load and unload
 */

static bool f2_modules_disabled(void)
{
	char buf[8];

	return !f2_read_line("/proc/sys/kernel/modules_disabled", buf,
			     sizeof(buf)) && buf[0] == '1';
}

/* A signed module whose key the kernel does not trust: what to do. */
#define F2_UNTRUSTED_KEY \
	"the module is signed, but by a key this kernel does not trust: enroll it (DKMS's: mokutil --import /var/lib/dkms/mok.pub), reboot and confirm in the MOK manager"

/* What init_module() and the module's init said, in words. */
static void f2_load_error(const struct f2_status *s, int err)
{
	const char *what;
	char lockdown[64] = "";

	fprintf(stderr, "fchmodat2ctl: cannot load %s: ", s->inst.path);
	switch (err) {
	case -EEXIST:
		what = "this kernel already implements fchmodat2: the module is not needed, and refuses to load";
		break;
	case -ENOEXEC:
		what = "invalid module format: it was built for another kernel; rebuild it for this one (DKMS does, at every kernel upgrade)";
		break;
	case -EINVAL:
		what = "the module disagrees with this kernel about a symbol's version (built for another kernel), or a parameter is invalid";
		break;
	case -ENOENT:
		what = "unknown symbol, or the module did not find what it needs in this kernel";
		break;
	case -EKEYREJECTED:
		/*
		 * Signatures enforced (Secure Boot on x86: the IMA arch
		 * policy; module.sig_enforce=1): unsigned, or a key the
		 * kernel does not trust
		 */
		what = s->inst.signed_ ?
			"module signatures are enforced (Secure Boot or module.sig_enforce) and " F2_UNTRUSTED_KEY :
			"unsigned module refused: the kernel enforces module signatures (Secure Boot or module.sig_enforce); sign it with an enrolled key (see the README, Secure Boot)";
		break;
	case -ENOKEY:
		what = F2_UNTRUSTED_KEY;
		break;
	case -EPERM:
		if (geteuid()) {
			what = "permission denied: loading a module needs root (CAP_SYS_MODULE)";
		} else if (f2_modules_disabled()) {
			what = "module loading is disabled (kernel.modules_disabled=1) until the next boot";
		} else {
			if (f2_lockdown_active(s))
				snprintf(lockdown, sizeof(lockdown),
					 " (lockdown: %s)", s->lockdown);
			/*
			 * Lockdown answers EPERM for an unsigned module and
			 * for one signed by a key the kernel does not trust
			 * (DKMS's, not enrolled yet), and logs "unsigned
			 * module loading is restricted" for both.
			 */
			if (s->inst.signed_)
				fprintf(stderr, "Secure Boot or lockdown%s: " F2_UNTRUSTED_KEY,
					lockdown);
			else
				fprintf(stderr, "unsigned module refused: Secure Boot or lockdown%s allows only signed modules; sign it with an enrolled key (see the README, Secure Boot)",
					lockdown);
			what = "";
		}
		break;
	case -EBUSY:
		what = "system call entry is already hooked by another ftrace user (a livepatch?)";
		break;
	default:
		what = strerror(-err);
		break;
	}
	fprintf(stderr, "%s [%s]; the kernel log (dmesg) says why\n", what,
		errno_name(-err));
}

static int f2_cmd_load(void)
{
	struct kmod_module *mod;
	struct f2_status s;
	int err;

	f2_read_status(&s);
	if (s.mod.loaded) {
		printf("fchmodat2ctl: the module is already loaded (version %s)\n",
		       s.mod.version);
		return F2_EXIT_OK;
	}
	/* a load would only make the module log its refusal */
	if (s.state == F2_NATIVE) {
		printf("fchmodat2ctl: this kernel has fchmodat2 natively: the module is not needed\n");
		return F2_EXIT_OK;
	}
	err = f2_lookup(&mod);
	if (err) {
		fprintf(stderr, "fchmodat2ctl: module %s is not installed for kernel %s: install it (the fchmodat2-dkms package, dkms install, or make install)\n",
			F2_MODULE, s.release);
		return err;
	}
	if (s.inst.placeholder) {
		kmod_module_unref(mod);
		fprintf(stderr, "fchmodat2ctl: %s\n", s.inst.why_not);
		return -EOPNOTSUPP;
	}
	err = kmod_module_probe_insert_module(mod, 0, NULL, NULL, NULL, NULL);
	kmod_module_unref(mod);
	if (err > 0)	/* a blacklist, which was not asked for */
		err = -EPERM;
	if (err) {
		/* EEXIST from a race with another loader is no error */
		f2_read_loaded(&s.mod);
		if (err == -EEXIST && s.mod.loaded)
			return F2_EXIT_OK;
		f2_load_error(&s, err);
		return err;
	}
	f2_read_loaded(&s.mod);
	if (f2_probe() != -EINVAL) {
		fprintf(stderr, "fchmodat2ctl: the module is loaded, but system call %d still fails: %s\n",
			__NR_fchmodat2, errno_name(-f2_probe()));
		return -EIO;
	}
	printf("fchmodat2ctl: module loaded (version %s): system call %d served through %s\n",
	       s.mod.version, __NR_fchmodat2, s.mod.mechanism);
	return F2_EXIT_OK;
}

static void f2_print_holders(struct kmod_module *mod)
{
	struct kmod_list *holders, *l;

	holders = kmod_module_get_holders(mod);
	kmod_list_foreach(l, holders) {
		struct kmod_module *h = kmod_module_get_module(l);

		fprintf(stderr, " %s", kmod_module_get_name(h));
		kmod_module_unref(h);
	}
	kmod_module_unref_list(holders);
}

static int f2_cmd_unload(void)
{
	struct kmod_module *mod;
	int state, refcnt, err;

	err = f2_new_module(&mod);
	if (err)
		return err;
	state = kmod_module_get_initstate(mod);
	if (state == -ENOENT) {
		printf("fchmodat2ctl: the module is not loaded\n");
		err = F2_EXIT_OK;
		goto out_unref;
	}
	if (state == KMOD_MODULE_BUILTIN) {
		fprintf(stderr, "fchmodat2ctl: fchmodat2 is built into the kernel: it cannot be unloaded\n");
		err = -EPERM;
		goto out_unref;
	}
	if (state != KMOD_MODULE_LIVE) {
		fprintf(stderr, "fchmodat2ctl: the module is still %s: try again\n",
			state == KMOD_MODULE_COMING ? "loading" : "unloading");
		err = -EBUSY;
		goto out_unref;
	}
	refcnt = kmod_module_get_refcnt(mod);
	if (refcnt > 0) {
		/* each call to 452 in progress holds one */
		fprintf(stderr, "fchmodat2ctl: cannot unload: the module is in use (%d reference%s: fchmodat2 calls in progress, or a task that died inside one); holders:",
			refcnt, refcnt == 1 ? "" : "s");
		f2_print_holders(mod);
		fputc('\n', stderr);
		err = -EBUSY;
		goto out_unref;
	}
	err = kmod_module_remove_module(mod, 0);
	if (err) {
		if (err == -EBUSY || err == -EAGAIN)
			fprintf(stderr, "fchmodat2ctl: cannot unload: the module is in use (a call to fchmodat2 in progress) [%s]\n",
				errno_name(-err));
		else if (err == -EPERM && geteuid())
			fprintf(stderr, "fchmodat2ctl: permission denied: unloading a module needs root (CAP_SYS_MODULE)\n");
		else
			fprintf(stderr, "fchmodat2ctl: cannot unload: %s [%s]\n",
				strerror(-err), errno_name(-err));
		goto out_unref;
	}
	printf("fchmodat2ctl: module unloaded: system call %d is %s\n",
	       __NR_fchmodat2, f2_probe() == -ENOSYS ? "ENOSYS again" :
	       "the kernel's own");
	err = F2_EXIT_OK;
out_unref:
	kmod_module_unref(mod);
	return err;
}

/* ----------------------------------------------------------------------
 * check
 */

struct f2_scratch {
	char dir[64];
	int dfd;
};

static int f2_scratch_create(struct f2_scratch *t)
{
	const char *tmp = getenv("TMPDIR");
	int fd, err;

	snprintf(t->dir, sizeof(t->dir), "%s/fchmodat2ctl.XXXXXX",
		 tmp && strlen(tmp) < sizeof(t->dir) - 24 ? tmp : "/tmp");
	if (!mkdtemp(t->dir))
		return -errno;
	t->dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dfd < 0) {
		err = -errno;
		goto out_rmdir;
	}
	fd = openat(t->dfd, "file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		err = -errno;
		goto out_close;
	}
	/* not the umask's: a known mode */
	err = fchmod(fd, 0644) ? -errno : 0;
	close(fd);
	if (!err && symlinkat("file", t->dfd, "link"))
		err = -errno;
	if (err)
		goto out_unlink;
	return 0;

out_unlink:
	unlinkat(t->dfd, "file", 0);
out_close:
	close(t->dfd);
out_rmdir:
	rmdir(t->dir);
	return err;
}

static void f2_scratch_remove(struct f2_scratch *t)
{
	unlinkat(t->dfd, "link", 0);
	unlinkat(t->dfd, "file", 0);
	close(t->dfd);
	rmdir(t->dir);
}

static unsigned int f2_mode(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	return st.st_mode;
}

/* One check: a call's result and errno, and the modes it leaves. */
/* --json check: how many checks were printed (for the commas) */
static int f2_checks_printed;

static void json_mode(const char *key, unsigned int mode, bool comma)
{
	char num[8];

	snprintf(num, sizeof(num), "%04o", mode & 07777);
	json_str(key, num, comma);
}

static bool f2_expect(const char *what, int ret, int err, int want_err,
		      unsigned int file, unsigned int file_want,
		      unsigned int link, unsigned int link_want)
{
	bool ok = (want_err ? ret == -1 && err == want_err : ret == 0) &&
		  file == file_want && link == link_want;

	if (opt.json) {
		printf("%s{", f2_checks_printed++ ? ", " : "");
		json_str("name", what, true);
		json_bool("ok", ok, true);
		json_str("got", ret ? errno_name(err) : "0", true);
		json_mode("file", file, true);
		json_mode("symlink", link, true);
		json_str("want", want_err ? errno_name(want_err) : "0", true);
		json_mode("want_file", file_want, true);
		json_mode("want_symlink", link_want, false);
		printf("}");
		return ok;
	}
	printf("%-4s %s: got %s, file %04o, symlink %04o", ok ? "ok" : "FAIL",
	       what, ret ? errno_name(err) : "0", file & 07777, link & 07777);
	if (!ok)
		printf(" (expected %s, file %04o, symlink %04o)",
		       errno_name(want_err), file_want & 07777,
		       link_want & 07777);
	putchar('\n');
	return ok;
}

#define F2_CALL(t, path, mode, flags, ret, err)				\
	do {								\
		errno = 0;						\
		ret = fchmodat2((t)->dfd, path, mode, flags);		\
		err = errno;						\
	} while (0)

/*
 * --json check: one object, {"syscall", "result": behaves, misbehaves,
 * absent, unknown or error, "probe", and "checks" (each with its name,
 * ok, what it got and wanted) or "reason", "exit"}; the text says the same.
 */
static int f2_check_json_end(const char *result, const char *reason, int code)
{
	char num[16];

	if (!opt.json)
		return code;
	if (reason)
		json_str("reason", reason, true);
	json_str("result", result, true);
	snprintf(num, sizeof(num), "%d", code < 0 ? F2_EXIT_FAILURE : code);
	json_raw("exit", num, false);
	printf("}\n");
	return code;
}

static int f2_cmd_check(void)
{
	struct f2_scratch t;
	unsigned int link_mode;
	int ret, err, pathfd, failed = 0;
	char num[16];

	err = f2_probe();
	if (opt.json) {
		printf("{");
		snprintf(num, sizeof(num), "%d", __NR_fchmodat2);
		json_raw("syscall", num, true);
		json_str("probe", errno_name(-err), true);
	}
	if (err == -ENOSYS) {
		struct f2_status st;

		/* what to do next depends on what is installed */
		f2_read_status(&st);
		if (opt.json)
			return f2_check_json_end("absent", st.inst.loadable ?
						 "\"fchmodat2ctl load\" loads the module" :
						 st.inst.why_not, F2_EXIT_ABSENT);
		if (st.inst.loadable)
			printf("fchmodat2ctl: system call %d is not available on this kernel (ENOSYS): \"fchmodat2ctl load\" loads the module\n",
			       __NR_fchmodat2);
		else
			printf("fchmodat2ctl: system call %d is not available on this kernel (ENOSYS), and no module can be loaded: %s%s\n",
			       __NR_fchmodat2, st.inst.why_not,
			       st.inst.found ? "" : " (install fchmodat2-dkms)");
		return F2_EXIT_ABSENT;
	}
	if (err != -EINVAL) {
		/* neither there nor absent: nothing can be checked */
		if (opt.json)
			return f2_check_json_end("unknown",
						 "the probe got neither EINVAL nor ENOSYS (a seccomp filter?)",
						 F2_EXIT_UNKNOWN);
		printf("fchmodat2ctl: cannot tell: system call %d answered %s, not EINVAL or ENOSYS (a seccomp filter?)\n",
		       __NR_fchmodat2, errno_name(-err));
		return F2_EXIT_UNKNOWN;
	}
	err = f2_scratch_create(&t);
	if (err) {
		fprintf(stderr, "fchmodat2ctl: cannot create a scratch directory in %s: %s\n",
			t.dir, strerror(-err));
		return f2_check_json_end("error", "cannot create a scratch directory",
					 err);
	}
	if (opt.json) {
		json_str("dir", t.dir, true);
		printf("\"checks\": [");
	} else {
		printf("fchmodat2ctl: checking system call %d in %s\n",
		       __NR_fchmodat2, t.dir);
	}
	link_mode = f2_mode(t.dfd, "link");

	F2_CALL(&t, "file", 0600, AT_SYMLINK_NOFOLLOW, ret, err);
	failed += !f2_expect("a regular file's mode changes (AT_SYMLINK_NOFOLLOW)",
			     ret, err, 0, f2_mode(t.dfd, "file"),
			     S_IFREG | 0600, f2_mode(t.dfd, "link"), link_mode);

	F2_CALL(&t, "link", 0640, AT_SYMLINK_NOFOLLOW, ret, err);
	failed += !f2_expect("a symlink is refused and left unchanged (AT_SYMLINK_NOFOLLOW)",
			     ret, err, EOPNOTSUPP, f2_mode(t.dfd, "file"),
			     S_IFREG | 0600, f2_mode(t.dfd, "link"), link_mode);

	F2_CALL(&t, "file", 0640, ~F2_VALID_FLAGS, ret, err);
	failed += !f2_expect("unknown flags are refused, nothing changes",
			     ret, err, EINVAL, f2_mode(t.dfd, "file"),
			     S_IFREG | 0600, f2_mode(t.dfd, "link"), link_mode);

	/* runc's call: a vendor kernel that said ENOENT broke containers */
	pathfd = openat(t.dfd, "file", O_PATH | O_CLOEXEC);
	errno = 0;
	ret = pathfd < 0 ? -1 : fchmodat2(pathfd, "", 0604, AT_EMPTY_PATH);
	err = errno;
	failed += !f2_expect("an O_PATH descriptor's file changes (AT_EMPTY_PATH)",
			     ret, err, 0, f2_mode(t.dfd, "file"),
			     S_IFREG | 0604, f2_mode(t.dfd, "link"), link_mode);
	if (pathfd >= 0)
		close(pathfd);

	f2_scratch_remove(&t);
	if (opt.json) {
		printf("], ");
		return f2_check_json_end(failed ? "misbehaves" : "behaves", NULL,
					 failed ? F2_EXIT_FAILURE : F2_EXIT_OK);
	}
	if (failed) {
		printf("fchmodat2ctl: %d of 4 checks FAILED: system call %d misbehaves\n",
		       failed, __NR_fchmodat2);
		return F2_EXIT_FAILURE;
	}
	printf("fchmodat2ctl: system call %d behaves\n", __NR_fchmodat2);
	return F2_EXIT_OK;
}

/* ----------------------------------------------------------------------
 * main
 */

struct f2_verb {
	const char *name;
	int (*fn)(void);
	bool kmod;		/* needs a libkmod context */
	const char *help;
};

static int f2_cmd_help(void);

static const struct f2_verb f2_verbs[] = {
	{ "status", f2_cmd_status, true,
	  "native, served by the module, or absent; the module's state" },
	{ "load", f2_cmd_load, true, "load the fchmodat2 module" },
	{ "unload", f2_cmd_unload, true, "unload the fchmodat2 module" },
	/* (libkmod: where 452 is absent, what is installed says what to do) */
	{ "check", f2_cmd_check, true,
	  "call system call 452 on scratch files: does it behave?" },
	{ "help", f2_cmd_help, false, "show this help" },
};

static void f2_usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"Usage: fchmodat2ctl [OPTION]... [VERB]\n"
		"fchmodat2 (system call %d) on this kernel: native, through the fchmodat2\n"
		"module, or absent.\n\n"
		"Verbs (default: status):\n", __NR_fchmodat2);
	for (i = 0; i < ARRAY_SIZE(f2_verbs); i++)
		fprintf(out, "  %-8s %s\n", f2_verbs[i].name, f2_verbs[i].help);
	fprintf(out,
		"\nOptions:\n"
		"  -j, --json      status or check as one JSON object\n"
		"  -q, --quiet     print nothing on standard output: the exit status\n"
		"                  tells (errors still go to standard error)\n"
		"  -v, --verbose   show libkmod's messages\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n\n"
		"Exit status of status: 0 available (native, or served by the module),\n"
		"4 absent and the module is loadable, 5 absent and no loadable module,\n"
		"6 cannot tell.\n"
		"Of check: 0 behaves, 1 misbehaves, 4 absent, 6 cannot tell. Others: 0 done, 1 failed.\n"
		"2: usage error. See fchmodat2ctl(8).\n");
}

static int f2_cmd_help(void)
{
	f2_usage(stdout);
	return F2_EXIT_OK;
}

/* A usage error: one line, and where to read more. */
static int f2_usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "fchmodat2ctl: %s%s%s%s\n", what, arg ? " \"" : "",
		arg ? arg : "", arg ? "\"" : "");
	fprintf(stderr, "Try 'fchmodat2ctl --help' for more information.\n");
	return F2_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct f2_verb *verb = &f2_verbs[0];
	size_t i;
	int c, ret;

	opterr = 0;	/* the one-line message below instead of getopt's */
	while ((c = getopt_long(argc, argv, "jqvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			f2_usage(stdout);
			return F2_EXIT_OK;
		case 'V':
			printf("fchmodat2ctl %s\n", F2_VERSION);
			return F2_EXIT_OK;
		default:
			return f2_usage_error("unknown option",
					      argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return f2_usage_error("one verb at most, extra",
				      argv[optind + 1]);
	if (optind < argc) {
		verb = NULL;
		for (i = 0; i < ARRAY_SIZE(f2_verbs); i++)
			if (!strcmp(argv[optind], f2_verbs[i].name))
				verb = &f2_verbs[i];
		if (!verb)
			return f2_usage_error("unknown verb", argv[optind]);
	}
	if (opt.json && verb->fn != f2_cmd_status && verb->fn != f2_cmd_check)
		return f2_usage_error("--json applies to status and check only", NULL);
	if (opt.quiet && verb->fn != f2_cmd_help &&
	    !freopen("/dev/null", "w", stdout)) {
		fprintf(stderr, "fchmodat2ctl: --quiet: /dev/null: %s\n",
			strerror(errno));
		return F2_EXIT_FAILURE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (verb->kmod) {
		ctx = kmod_new(NULL, NULL);
		if (!ctx) {
			fprintf(stderr, "fchmodat2ctl: libkmod: cannot start\n");
			return F2_EXIT_FAILURE;
		}
		kmod_set_log_fn(ctx, f2_kmod_log, NULL);
	}
	ret = verb->fn();
	if (ctx)
		kmod_unref(ctx);
	if (ret < 0)
		return F2_EXIT_FAILURE;
	return ret;
}
