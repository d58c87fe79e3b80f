/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An NFSv4 server and its client on one machine, for the tests
 * (tests/subsystems/subsys_nfs.c, tests/unload_test.c): the kernel's nfsd
 * exports a directory as the NFSv4 root, set up through /proc/fs/nfsd
 * and the export caches as rpc.nfsd and rpc.mountd would, and the
 * kernel's NFS client mounts it back over the loopback interface. Needs
 * the nfsd and nfsv4 modules loaded and /proc mounted. nfsd is
 * machine-wide: VM guests only.
 */
#ifndef NFS_LOOPBACK_H
#define NFS_LOOPBACK_H

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#define NFSD		"/proc/fs/nfsd"
#define NFS_EXPIRY	"2147483647"
#define NFSEXP_INSECURE_PORT	0x0002
#define NFSEXP_NOSUBTREECHECK	0x0400
#define NFSEXP_FSID		0x2000

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Write @text to the file @path: 0 or -errno. (nfsd wants a newline.) */
static inline int nfs_put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = -errno;
	close(fd);
	return err;
}

/* Bring the loopback interface up or down: 0, or -1 with errno set. */
static inline int nfs_lo(bool up)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		err = -1;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	if (!err && ioctl(s, SIOCSIFFLAGS, &ifr))
		err = -1;
	if (s >= 0) {
		int e = errno;

		close(s);
		errno = e;
	}
	return err;
}

/*
 * What rpc.nfsd and rpc.mountd would do: NFSv4 only (no rpcbind, no
 * lockd), the shortest lease and grace times (10 s), the export caches
 * answered ahead of the upcalls (127.0.0.1 is in domain f2dom, @work is
 * its NFSv4 root, fsid 0, no root squashing), a TCP listener on 2049,
 * four threads. NULL, or the path or step that failed (errno set).
 */
static inline const char *nfs_serve(const char *work)
{
	static char export[PATH_MAX + 64], fh[PATH_MAX + 64];
	unsigned int flags = NFSEXP_FSID | NFSEXP_NOSUBTREECHECK |
			     NFSEXP_INSECURE_PORT;
	const struct {
		const char *path, *text;
		bool optional;	/* a file older kernels do not have */
	} steps[] = {
		{ NFSD "/nfsv4leasetime", "10\n", false },
		{ NFSD "/nfsv4gracetime", "10\n", true },
		{ "/proc/net/rpc/auth.unix.ip/channel",
		  "nfsd 127.0.0.1 " NFS_EXPIRY " f2dom\n", false },
		{ "/proc/net/rpc/nfsd.export/channel", export, false },
		{ "/proc/net/rpc/nfsd.fh/channel", fh, false },
		{ NFSD "/portlist", "tcp 2049\n", false },
		{ NFSD "/threads", "4\n", false },
	};
	const char *v;
	unsigned int i;
	int err;

	if (access("/proc/net/rpc/nfsd.export/channel", W_OK))
		return "/proc/net/rpc/nfsd.export (the nfsd module)";
	if (mount("nfsd", NFSD, "nfsd", 0, NULL) && errno != EBUSY)
		return "mount " NFSD;
	if (nfs_lo(true))
		return "bring up lo";
	/* each version alone: a kernel without v2 refuses "-2" */
	for (v = "-2\n\0-3\n\0+4\n\0+4.1\n\0+4.2\n\0"; *v; v += strlen(v) + 1) {
		if (!nfs_put(NFSD "/versions", v) || v[0] != '+')
			continue;
		err = nfs_put(NFSD "/versions", v);
		if (err) {
			errno = -err;
			return NFSD "/versions";
		}
	}
	snprintf(export, sizeof(export),
		 "f2dom %s " NFS_EXPIRY " %u 65534 65534 0\n", work, flags);
	snprintf(fh, sizeof(fh), "f2dom 1 \\x00000000 " NFS_EXPIRY " %s\n",
		 work);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].optional && access(steps[i].path, F_OK))
			continue;
		err = nfs_put(steps[i].path, steps[i].text);
		if (err) {
			errno = -err;
			return steps[i].path;
		}
	}
	return NULL;
}

/* seconds after which a mount that has not returned is shown waiting */
#define NFS_MOUNT_SLOW_S	20

/* Print @path's lines that contain @match (all if NULL), after "# ". */
static inline void nfs_show(const char *path, const char *match)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f) {
		printf("# %s: %s\n", path, strerror(errno));
		return;
	}
	printf("# %s:\n", path);
	errno = 0;
	while (fgets(line, sizeof(line), f))
		if (!match || strstr(line, match))
			printf("#   %s%s", line,
			       strchr(line, '\n') ? "" : "\n");
	if (ferror(f))
		printf("#   (read: %s)\n", strerror(errno));
	fclose(f);
}

/*
 * What a mount that does not return waits for: the kernel stack of the
 * mounting task @pid and of nfsd's threads, the TCP connections to and
 * from port 2049 (0801: state, queues), nfsd's pool and RPC statistics,
 * the client's; and every RPC task in the kernel log (any write to
 * rpc_debug dumps them, at KERN_INFO).
 */
static inline void nfs_show_wait(pid_t pid)
{
	char path[300], comm[32];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	nfs_show(path, NULL);
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		if (atoi(d->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "nfsd\n")) {
			snprintf(path, sizeof(path), "/proc/%s/stack",
				 d->d_name);
			nfs_show(path, NULL);
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	nfs_show("/proc/net/tcp", ":0801");
	nfs_show(NFSD "/pool_stats", NULL);
	nfs_show("/proc/net/rpc/nfsd", NULL);
	nfs_show("/proc/net/rpc/nfs", NULL);
	nfs_put("/proc/sys/sunrpc/rpc_debug", "0\n");
	fflush(stdout);
}

/*
 * Whether nfsd's IPv4 listener (0.0.0.0:2049, LISTEN) has connections
 * waiting to be accepted: the accept queue is the rx_queue of its line
 * in /proc/net/tcp.
 */
static inline bool nfs_accept_pending(void)
{
	unsigned int st, tx, rx;
	bool pending = false;
	char line[256];
	FILE *f = fopen("/proc/net/tcp", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: 00000000:0801 00000000:0000 %x %x:%x",
			   &st, &tx, &rx) == 3 && st == 0x0A && rx > 0)
			pending = true;
	fclose(f);
	return pending;
}

/* A connection to nfsd's port, closed at once: 0, or -1 with errno set. */
static inline int nfs_connect_once(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ret;

	if (s < 0)
		return -1;
	a.sin_port = htons(2049);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ret = connect(s, (struct sockaddr *)&a, sizeof(a));
	close(s);
	return ret;
}

/*
 * The client mounts the server's root on @mnt, with long attribute
 * caching (it trusts its dentries): 0, or -1 with errno set. The mount
 * is this task's; a watcher (a child) looks at it every second.
 *
 * On Debian 11's 5.10 PREEMPT_RT kernel nfsd can miss the client's
 * connection: the client's handshake ACK and its first data (the RPC
 * NULL ping of rpc_create()) reach the listener's request socket on
 * both vCPUs at once (ksoftirqd on one, the sender's softirq on the
 * other), two children are cloned, one is closed, and the other is made
 * ESTABLISHED by the packet of the CPU whose clone was closed: through
 * its socket lookup, a path that does not call the listener's
 * sk_data_ready(), as tcp_child_process() does. sunrpc's listener is never enqueued (pool_stats
 * counts no enqueue after the listeners' creation), nfsd's threads sleep
 * in svc_recv() with the connection in the accept queue, and the ping
 * waits out its major timeout (60 s + 2 x 60 s): the mount returns after
 * 180 s. Shown with the sunrpc and sock:inet_sock_set_state tracepoints
 * (two LISTEN -> SYN_RECV clones 2.4 ms apart, no svc_xprt_do_enqueue of
 * the listener after them), and by a second connection, which wakes
 * the listener: nfsd accepts both and the mount returns at once. Not
 * the module (nfsd, TCP and the NFS client alone are involved), and not
 * this test's subject: when the listener has held a connection for 3 s,
 * the watcher says so and connects once, as that second connection.
 * A mount still waiting after NFS_MOUNT_SLOW_S is shown waiting
 * (nfs_show_wait()).
 */
static inline int nfs_mount(const char *mnt)
{
	struct timespec t0, t1;
	pid_t self = getpid(), watcher;
	int ret, err, i, pending = 0;

	fflush(stdout);
	watcher = fork();
	if (watcher == 0) {
		for (i = 1; i <= NFS_MOUNT_SLOW_S; i++) {
			sleep(1);
			pending = nfs_accept_pending() ? pending + 1 : 0;
			if (pending < 3)
				continue;
			printf("# nfsd has not accepted the client's connection for 3 s: its listener missed it (nfs_loopback.h); a second connection wakes it: %s\n",
			       nfs_connect_once() ? strerror(errno) : "connected");
			fflush(stdout);
			pending = 0;
		}
		printf("# the NFS mount has not returned after %d s: it waits here\n",
		       NFS_MOUNT_SLOW_S);
		nfs_show_wait(self);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = mount("127.0.0.1:/", mnt, "nfs4", 0,
		    "vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1,actimeo=600");
	err = errno;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/*
	 * A watcher that may have begun to print ends its lines; one that
	 * sleeps is stopped (it prints in a second, after a check).
	 */
	if (watcher > 0 && t1.tv_sec - t0.tv_sec < NFS_MOUNT_SLOW_S - 1)
		kill(watcher, SIGKILL);
	if (watcher > 0)
		waitpid(watcher, NULL, 0);
	errno = err;
	return ret;
}

/*
 * Stop nfsd's threads and flush its caches (as exportfs -f does), which
 * hold the exported directory: its filesystem can be unmounted then.
 */
static inline void nfs_stop(void)
{
	static const char * const caches[] = {
		"nfsd.fh", "nfsd.export", "auth.unix.ip", NULL
	};
	const char * const *c;
	char path[64], now[32];

	nfs_put(NFSD "/threads", "0\n");
	snprintf(now, sizeof(now), "%lld\n", (long long)time(NULL));
	for (c = caches; *c; c++) {
		snprintf(path, sizeof(path), "/proc/net/rpc/%s/flush", *c);
		nfs_put(path, now);
	}
}

/*
 * Whether /proc/locks shows a delegation on inode @ino, and (@breaking)
 * whether it is being broken.
 */
static inline bool nfs_delegated(ino_t ino, bool breaking)
{
	char line[256], want[32];
	bool found = false;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return false;
	snprintf(want, sizeof(want), ":%lu ", (unsigned long)ino);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "DELEG") && strstr(line, want) &&
		    (!breaking || strstr(line, "BREAKING")))
			found = true;
	fclose(f);
	return found;
}

/*
 * Open @name under the client's mount @mfd for reading until the client
 * holds a read delegation on it (inode @ino on the server): nfsd grants
 * none in its grace period, nor before the callback channel is up. The
 * open file, or -1.
 */
static inline int nfs_open_delegated(int mfd, const char *name, ino_t ino)
{
	int fd = -1, i;

	for (i = 0; i < 120 && !nfs_delegated(ino, false); i++) {
		if (fd >= 0) {
			close(fd);
			usleep(250000);
		}
		fd = openat(mfd, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (nfs_delegated(ino, false))
		return fd;
	close(fd);
	errno = ETIMEDOUT;
	return -1;
}

#endif /* NFS_LOOPBACK_H */
