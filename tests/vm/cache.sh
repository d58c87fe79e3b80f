# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced: sets f2_cache, where downloaded kernels, Debian 13's QEMU and
# other large artefacts are kept. Outside the clone, so that a fresh clone
# (CI's) reuses them: $F2_CACHE, else $XDG_CACHE_HOME/fchmodat2-backport,
# else ~/.cache/fchmodat2-backport.
# depmod, dkms, modinfo, mkfs.*: in sbin, which a user's PATH lacks on Debian
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
f2_cache=${F2_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fchmodat2-backport}
mkdir -p "$f2_cache"
f2_cache=$(cd "$f2_cache" && pwd)
