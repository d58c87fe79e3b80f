// SPDX-License-Identifier: GPL-2.0
/*
 * bpfhold fentry|fexit FUNC READY: attach a BPF tracing program (fentry or
 * fexit, as bpftrace's kfunc:/kretfunc: probes are) to the kernel function
 * FUNC, found by name in the kernel's BTF (/sys/kernel/btf/vmlinux), with
 * run-time statistics on (BPF_ENABLE_STATS); create the file READY once
 * attached, wait for SIGTERM, then print "run_cnt N" (how many times the
 * program ran) and exit 0. When the program cannot be loaded or attached,
 * print "attach: errno N, its text (the verifier's log)" and exit 1, so that the
 * caller can tell "refused" from "broken". No libbpf: the raw bpf()
 * system call, a two-instruction program (return 0), a BTF walk, so that
 * it builds static with nothing but the C library and the UAPI headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "harness.h"	/* ARRAY_SIZE */

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* the size of a BTF type's record, after its struct btf_type */
static long btf_extra(const struct btf_type *t)
{
	unsigned int vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return vlen * (long)sizeof(struct btf_var_secinfo);
	case 17:	/* BTF_KIND_DECL_TAG (5.16): a component index */
		return 4;
	case 19:	/* BTF_KIND_ENUM64 (6.0): name, lo32, hi32 */
		return vlen * 12L;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case 16:	/* BTF_KIND_FLOAT (5.13) */
	case 18:	/* BTF_KIND_TYPE_TAG (5.17) */
		return 0;
	}
	return -1;
}

/* the BTF id of the function NAME in the kernel's BTF, or -1 */
static long btf_func_id(const char *name)
{
	static char buf[64 << 20];
	const struct btf_header *h = (const void *)buf;
	const char *types, *strs;
	long n = 0, r, off, id = 1;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);

	if (fd < 0) {
		perror("/sys/kernel/btf/vmlinux");
		return -1;
	}
	while ((r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += r;
	close(fd);
	if (n < (long)sizeof(*h) || h->magic != BTF_MAGIC) {
		fprintf(stderr, "/sys/kernel/btf/vmlinux: not BTF\n");
		return -1;
	}
	types = buf + h->hdr_len + h->type_off;
	strs = buf + h->hdr_len + h->str_off;
	for (off = 0; off < h->type_len; id++) {
		const struct btf_type *t = (const void *)(types + off);
		long extra = btf_extra(t);

		if (extra < 0) {
			fprintf(stderr, "BTF kind %u unknown\n",
				BTF_INFO_KIND(t->info));
			return -1;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    !strcmp(strs + t->name_off, name))
			return id;
		off += sizeof(*t) + extra;
	}
	fprintf(stderr, "%s: no such function in the kernel's BTF\n", name);
	return -1;
}

static atomic_int stop;

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

int main(int argc, char **argv)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[1 << 16];
	struct bpf_prog_info info;
	union bpf_attr attr;
	int prog_fd, link_fd, stats_fd, ready;
	sigset_t term, old;
	long id;

	if (argc != 4 || (strcmp(argv[1], "fentry") && strcmp(argv[1], "fexit"))) {
		fprintf(stderr, "usage: %s fentry|fexit FUNC READY\n", argv[0]);
		return 2;
	}
	id = btf_func_id(argv[2]);
	if (id < 0)
		return 2;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	stats_fd = sys_bpf(BPF_ENABLE_STATS, &attr);
	if (stats_fd < 0) {
		perror("BPF_ENABLE_STATS");
		return 2;
	}

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = strcmp(argv[1], "fentry") ?
		BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	attr.attach_btf_id = id;
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	prog_fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0) {
		printf("attach: errno %d, %s (load: %s)\n", errno,
		       strerror(errno), log[0] ? log : "no verifier log");
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog_fd;
	link_fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link_fd < 0) {
		printf("attach: errno %d, %s (attach)\n", errno,
		       strerror(errno));
		return 1;
	}

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	sigdelset(&old, SIGTERM);	/* sigsuspend() below lets it in */
	signal(SIGTERM, on_term);
	ready = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (ready < 0) {
		perror(argv[3]);
		return 2;
	}
	close(ready);
	while (!atomic_load(&stop))
		sigsuspend(&old);

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = prog_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		perror("BPF_OBJ_GET_INFO_BY_FD");
		return 2;
	}
	printf("run_cnt %llu\n", (unsigned long long)info.run_cnt);
	close(link_fd);
	close(prog_fd);
	close(stats_fd);
	return 0;
}
