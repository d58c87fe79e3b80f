#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real-system stage, inside the Debian 12 (or 11) guest of mkimage.sh:
# run by f2-stage.service (systemd) from the drive labelled F2, mounted on
# /f2, once per boot. tests/debian-system/run.sh boots the same disk seven times
# (eight with F2_FULL=1) on Debian 12, four (five) on Debian 11 (one less
# where the mirror has no newer kernel ABI than the point release's):
#
#   boot 1: no fchmodat2; Debian 13's chmod -R cannot work without /proc;
#           apt installs the packages the tree built; DKMS builds and
#           signs the module for the running kernel; the package's
#           fchmodat2.service loads it at once; the suite passes; then
#           systemd reboots (QEMU ends with -no-reboot, run.sh boots the
#           disk again).
#   boot 2: fchmodat2.service loaded the module at boot; fchmodat2ctl
#           says served;
#           Debian 13's chmod -R without /proc changes every file; a
#           second kernel package (the cloud flavour) gets the module
#           from DKMS's kernel hook; so does the kernel upgrade within
#           the series (linux-image-amd64 and linux-headers-amd64 from
#           the point release's ABI to the security suite's, as apt
#           upgrade brings it); the kernel upgrade to Debian 12's
#           6.12 (apt install linux-image-6.12-amd64 and its headers):
#           apt exits 0, DKMS installs the placeholder that never
#           loads. With F2_FULL=1 (make check-full), before that kernel
#           upgrade: the package's next version (debs-next/) installed
#           while the module serves; then
#   boot 3: (F2_FULL=1 only) the new version loaded at boot; the kernel
#           upgrade to 6.12;
#   sb1:    UEFI Secure Boot (OVMF, Debian's shim and GRUB, the signed
#           kernel): locked down, module signatures enforced; DKMS's key
#           is not enrolled, so the unit fails saying how to enrol it,
#           fchmodat2ctl load says so in one line, modprobe and an
#           unsigned copy are rejected ("Key was rejected by service");
#   sb2:    the same with DKMS's key in MokList (run.sh puts it there, as
#           MokManager does): the unit loaded the module at boot, it
#           serves 452 locked down, an unsigned copy is rejected;
#   series: the series' newer ABI installed in boot 2: the unit loaded
#           the module DKMS built for it at boot, it serves;
#   cloud:  the cloud flavour installed in boot 2: the same;
#   last boot, on 6.12 (native fchmodat2): nothing loads, the unit does
#           nothing and fails nothing, fchmodat2ctl says native; apt
#           remove leaves nothing.
#
# Debian 11 (bullseye): boots 1, 2 (and 3), series and cloud as above, with DKMS
# 2.8, which does not sign, without Secure Boot and the kernel upgrade to
# 6.12; apt remove at the end of the cloud boot leaves nothing.
#
# TAP on the console (ttyS0); the kernel log and "F2-STATUS <rc>" on the
# status channel (ttyS1), as tests/vm/init does.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
F2=/f2
# shellcheck source=tests/guest/steps.sh
. "$F2/steps.sh"
# shellcheck source=tests/subsystems/suite.sh
. "$F2/suite.sh"
SUBSYS_BIN=$F2/bin
ver=$(cat "$F2/VERSION")
release=$(cat "$F2/RELEASE")
relname='Debian 12'
[ "$release" = bullseye ] && relname='Debian 11'
krel=$(cat /var/cache/f2-debs/KREL)
cloud=$(cat /var/cache/f2-debs/CLOUD_KREL)
# the series' newer ABI, from the security suite (empty: none newer)
series=$(cat /var/cache/f2-debs-series/KREL 2>/dev/null)
# Debian 12's kernel upgrade out of the series: its 6.12 (native fchmodat2)
native=$(cat /var/cache/f2-debs-upgrade/KREL)
state=/var/lib/f2-stage
mkdir -p "$state"
phase=$(cat "$state/phase" 2>/dev/null || echo 1)
status=/dev/ttyS1
echo "F2-INIT $(uname -r) boot $phase" >"$status"
tmp=$(mktemp -d)

# quiet CMD...: run CMD, its output as TAP comments as it comes (apt and
# DKMS say a lot, and run.sh stops a guest that goes silent)
quiet() {
	"$@" 2>&1 | sed -u 's/^/#   /'
	return "${PIPESTATUS[0]}"
}
# hex of a serial as openssl or modinfo print it: upper case, no colons
serial() { tr -d ':\n' | tr a-f A-F | sed 's/^0*//'; }
f2_probe() { "$SUBSYS_BIN/fchmodat2_test" --probe 2>&1; }

# readme_sign_file KO: the README's Debian 11 Secure Boot commands (a key
# made once with openssl, sign-file of the release's linux-kbuild), on a
# copy of KO: the copy is signed by that key. (Enrolling the key with
# mokutil and loading under Secure Boot is the Debian 12 boots' sb1/sb2;
# Debian 11's image boots without UEFI.)
readme_sign_file() {
	local sf k=/tmp/readme-key
	# (/usr/lib/linux-kbuild-5.10/scripts/sign-file, as the README has it)
	sf=/usr/lib/linux-kbuild-$(echo "$krel" | cut -d. -f1,2)/scripts/sign-file
	mkdir -p "$k" && cp "$1" "$k/fchmodat2.ko" &&
		quiet openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 -outform DER \
			-subj '/CN=fchmodat2 module signing/' -keyout "$k/mok.key" -out "$k/mok.der" &&
		quiet "$sf" sha256 "$k/mok.key" "$k/mok.der" "$k/fchmodat2.ko"
	step $? "the README's Debian 11 commands: openssl req makes a key, $sf signs a copy of the module"
	local key sig
	key=$(openssl x509 -inform DER -in "$k/mok.der" -noout -serial 2>/dev/null |
		sed 's/^serial=//' | serial)
	sig=$(modinfo -F sig_key "$k/fchmodat2.ko" 2>/dev/null | serial)
	echo "# signer: $(modinfo -F signer "$k/fchmodat2.ko"), sig_key $sig; key serial $key"
	[ "$(modinfo -F signer "$k/fchmodat2.ko")" = "fchmodat2 module signing" ] &&
		[ -n "$key" ] && [ "$sig" = "$key" ]
	step $? "the copy is signed by that key (signer, serial)"
	rm -rf "$k"
}
# status_json: fchmodat2ctl status --json, and its exit code in st_rc
status_json() {
	json=$(fchmodat2ctl status --json)
	st_rc=$?
	echo "# fchmodat2ctl status --json (exit $st_rc): $json"
}
modules_of() { find /lib/modules -name 'fchmodat2.ko*' 2>/dev/null; }
# dkms_installed VERSION KREL: dkms status says VERSION is installed for
# KREL (DKMS 3's "fchmodat2/V, K, x86_64: installed"; DKMS 2.8's
# "fchmodat2, V, K, x86_64: installed")
# (fixed strings: a kernel release may hold a "+")
dkms_installed() {
	echo "$ds" | grep -qxF -e "fchmodat2/$1, $2, x86_64: installed" \
		-e "fchmodat2, $1, $2, x86_64: installed"
}

system_checks() {
	[ "$(cat /proc/1/comm)" = systemd ]
	step $? "PID 1 is systemd ($(readlink /proc/1/exe))"
	systemctl is-active -q multi-user.target
	step $? "systemd reached multi-user.target"
	failed_units=$(systemctl --failed --no-legend --plain | awk '{ print $1 }')
	[ -z "$failed_units" ]
	step $? "no failed systemd unit${failed_units:+: $failed_units}"
	[ "$(uname -r)" = "${1:-$krel}" ]
	step $? "the guest runs $relname's ${1:-$krel}"
	preemption_checks
}

boot1() {
	echo "# ===== boot 1: install with apt and DKMS, load, enable at boot"
	system_checks
	f2_probe | grep -q ENOSYS
	step $? "no fchmodat2 before the module: $(f2_probe)"
	# glibc 2.41's fchmodat(AT_SYMLINK_NOFOLLOW) needs /proc without 452:
	# chmod -R exits 0 having changed nothing below the top.
	run subsys_chmod_tap "$tmp" "$F2/trixie" fallback

	debs=("$F2/debs/fchmodat2-dkms_${ver}_all.deb"
	      "$F2/debs/fchmodat2ctl_${ver}_amd64.deb"
	      "$F2/debs/libfchmodat2-0_${ver}_amd64.deb")
	echo "# apt-get install ${debs[*]##*/}"
	quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		"${debs[@]}"
	step $? "apt-get install fchmodat2-dkms fchmodat2ctl libfchmodat2-0 (local .debs)"
	ds=$(dkms status fchmodat2 2>&1)
	echo "# dkms status: $ds"
	dkms_installed "$ver" "$krel"
	step $? "DKMS built and installed fchmodat2/$ver for $krel"
	ko=$(modinfo -n fchmodat2 2>/dev/null)
	case $ko in /lib/modules/"$krel"/updates/*) true ;; *) false ;; esac
	step $? "modprobe finds DKMS's module: $ko"
	signed=true
	if [ "$release" = bullseye ]; then
		# DKMS 2.8 does not sign (README: Secure Boot on Debian 11)
		signed=false
		[ -z "$(modinfo -F signer "$ko")" ] && [ ! -e /var/lib/dkms/mok.pub ]
		step $? "Debian 11's DKMS did not sign the module (no signer, no /var/lib/dkms/mok.pub)"
		readme_sign_file "$ko"
	else
		# DKMS signs with the key it made on first use (/var/lib/dkms/mok.*)
		key=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -serial 2>/dev/null |
			sed 's/^serial=//' | serial)
		sig=$(modinfo -F sig_key "$ko" 2>/dev/null | serial)
		echo "# signer: $(modinfo -F signer "$ko"), sig_key $sig; DKMS key serial $key"
		[ -n "$key" ] && [ "$sig" = "$key" ]
		step $? "the module is signed with the key DKMS created (/var/lib/dkms/mok.pub)"
	fi

	# the package's unit loaded it at install, with no manual step
	[ -d /sys/module/fchmodat2 ] && f2_probe | grep -q available
	step $? "452 works right after apt-get install: $(f2_probe)"
	systemctl is-enabled -q fchmodat2.service &&
		systemctl is-active -q fchmodat2.service
	step $? "fchmodat2.service is enabled and active"
	quiet fchmodat2ctl load
	step $? "fchmodat2ctl load (the module is already loaded: nothing to do)"
	status_json
	[ "$st_rc" = 0 ] && echo "$json" | grep -q '"state": *"module"' &&
		echo "$json" | grep -q "\"signed\": *$signed"
	step $? "fchmodat2ctl status --json: served by the module (exit 0), installed module signed: $signed"
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"
	run "$SUBSYS_BIN/fchmodat2_test32" -d "$tmp"
}

# dkms_built_for KREL: DKMS's kernel hook built and installed the module
# for KREL, a kernel apt just installed
dkms_built_for() {
	local ko vm

	ds=$(dkms status fchmodat2 2>&1)
	echo "# dkms status: $ds"
	dkms_installed "$ver" "$1"
	step $? "DKMS's kernel hook built and installed the module for $1"
	ko=$(find "/lib/modules/$1/updates" -name 'fchmodat2.ko*' | head -n 1)
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
	case $vm in "$1 "*) true ;; *) false ;; esac
	step $? "$ko is built for $1 (vermagic $vm)"
}

boot2() {
	echo "# ===== boot 2: loaded by systemd; a second kernel; apt remove"
	system_checks
	[ -d /sys/module/fchmodat2 ]
	step $? "the module is loaded after the reboot"
	jr=$(journalctl -b -u fchmodat2.service --no-pager -o cat)
	echo "$jr" | sed 's/^/#   /'
	echo "$jr" | grep -q "fchmodat2ctl: module loaded (version $ver)" &&
		[ "$(systemctl show -P Result fchmodat2.service)" = success ] &&
		systemctl is-active -q fchmodat2.service
	step $? "fchmodat2.service loaded it at boot, and succeeded"
	status_json
	[ "$st_rc" = 0 ] && echo "$json" | grep -q '"state": *"module"'
	step $? "fchmodat2ctl status --json: served by the module (exit 0)"
	run subsys_chmod_tap "$tmp" "$F2/trixie" 452
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"

	echo "# apt-get install the cloud flavour of $krel (image and headers)"
	quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		/var/cache/f2-debs/*.deb
	step $? "apt-get install linux-image-$cloud linux-headers-$cloud"
	dkms_built_for "$cloud"

	# the kernel upgrade within the series: what "apt upgrade" brings
	# from the security suite (the image's system is the point release's)
	if [ -n "$series" ]; then
		echo "# apt-get install: linux-image-amd64 and linux-headers-amd64 upgraded, $krel -> $series (local .debs)"
		quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y \
			/var/cache/f2-debs-series/*.deb
		step $? "apt-get install of the series' newer kernel $series (linux-image-amd64, linux-headers-amd64 upgraded)"
		dkms_built_for "$series"
	else
		step_skipped "the mirror's security suite has no newer ABI than the point release's $krel" \
			"the kernel upgrade within the series"
	fi

	if [ -f "$F2/NEXT" ]; then
		upgrade
	elif [ "$release" = bookworm ]; then
		kernel_upgrade
	fi
}

# make check-full: the package's next version installed over this one
# while the module is loaded and serving; the module stays, DKMS builds
# the new one, the next boot loads it
upgrade() {
	local next n bad ds
	next=$(cat "$F2/NEXT")
	echo "# ===== package upgrade $ver -> $next while the module serves"
	rm -f "$tmp/stop"
	(while [ ! -e "$tmp/stop" ]; do f2_probe; sleep 0.05; done) >"$tmp/calls" &
	caller=$!
	quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		"$F2"/debs-next/*.deb
	step $? "apt-get install of version $next over $ver"
	touch "$tmp/stop"
	wait "$caller"
	n=$(grep -c 'available' "$tmp/calls") bad=$(grep -vc 'available' "$tmp/calls")
	[ "$n" -gt 0 ] && [ "$bad" = 0 ]
	step $? "452 was served all through the upgrade ($n calls; $bad not served)"
	[ "$(cat /sys/module/fchmodat2/version)" = "$ver" ]
	step $? "the running module is still version $ver: it stays until the next boot"
	systemctl is-enabled -q fchmodat2.service &&
		systemctl is-active -q fchmodat2.service
	step $? "fchmodat2.service is still enabled and active"
	ds=$(dkms status fchmodat2 2>&1)
	echo "# dkms status: $ds"
	dkms_installed "$next" "$krel" &&
		! echo "$ds" | grep -qF -e "fchmodat2/$ver," -e "fchmodat2, $ver,"
	step $? "DKMS built and installed fchmodat2/$next for $krel; $ver is gone"
	# every kernel that had the module (and has its headers) gets the
	# new version, not only the running and the newest one (DKMS's
	# postinst alone: debian/fchmodat2-dkms.postinst)
	for k in $cloud $series; do
		dkms_installed "$next" "$k"
		step $? "DKMS built and installed fchmodat2/$next for $k too"
	done
	[ "$(modinfo -F version fchmodat2 2>/dev/null)" = "$next" ]
	step $? "modprobe now finds version $next ($(modinfo -n fchmodat2 2>/dev/null))"
}

boot3() {
	local next
	next=$(cat "$F2/NEXT")
	echo "# ===== boot 3: the upgraded package's module, loaded at boot"
	system_checks
	[ "$(cat /sys/module/fchmodat2/version 2>/dev/null)" = "$next" ]
	step $? "the module loaded at boot is version $next"
	journalctl -b -u fchmodat2.service --no-pager -o cat | sed 's/^/#   /'
	journalctl -b -u fchmodat2.service --no-pager -o cat |
		grep -q "fchmodat2ctl: module loaded (version $next)"
	step $? "fchmodat2.service loaded version $next at boot"
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"
	ver=$next
	[ "$release" = bookworm ] && kernel_upgrade
}

# The kernel upgrade of a Debian 12 user to 6.12 (bookworm's
# linux-image-6.12-amd64, the same 6.12 as Debian 13's), which has
# fchmodat2: DKMS builds the placeholder that never loads (a module DKMS
# excludes would make Debian 12's DKMS fail the kernel's installation)
kernel_upgrade() {
	local rc ds ko
	# the README's Remove starts so: unload the module that serves
	quiet fchmodat2ctl unload
	step $? "fchmodat2ctl unload (the module served 452 until now)"
	[ ! -d /sys/module/fchmodat2 ] && f2_probe | grep -q ENOSYS
	step $? "452 is ENOSYS again: $(f2_probe)"
	echo "# ===== kernel upgrade to $native (native fchmodat2)"
	echo "# apt-get install linux-image-6.12-amd64 linux-headers-6.12-amd64 (local .debs)"
	quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		/var/cache/f2-debs-upgrade/*.deb
	rc=$?
	[ "$rc" = 0 ] && dpkg-query -W -f '${Status}\n' "linux-image-$native" |
		grep -qx 'install ok installed'
	step $? "apt-get install of $native exits 0 (exit $rc), the kernel's package is configured"
	ds=$(dkms status fchmodat2 2>&1)
	echo "# dkms status: $ds"
	ko=$(find "/lib/modules/$native" -name 'fchmodat2.ko*' | head -n 1)
	dkms_installed "$ver" "$native" &&
		modinfo -F description "$ko" | grep -q '^fchmodat2 placeholder: kernel .* already has fchmodat2'
	step $? "DKMS installed its placeholder for $native: $(modinfo -F description "$ko" 2>/dev/null)"
}

# the last boot, on 6.12: native fchmodat2, nothing to load
native_boot() {
	local jr
	echo "# ===== the last boot: $native, which has fchmodat2"
	system_checks "$native"
	[ ! -d /sys/module/fchmodat2 ] && f2_probe | grep -q available
	step $? "452 works and no module is loaded: $(f2_probe)"
	jr=$(journalctl -b -u fchmodat2.service --no-pager -o cat)
	echo "$jr" | sed 's/^/#   /'
	echo "$jr" | grep -q "natively: the module is not needed" &&
		[ "$(systemctl show -P Result fchmodat2.service)" = success ]
	step $? "fchmodat2.service ran, said the module is not needed, and succeeded"
	# (systemd's own early lines, "Starting fchmodat2.service", are in
	# the kernel's log too: the module's lines begin "fchmodat2: ")
	! dmesg | grep -q 'fchmodat2: '
	step $? "the kernel log of this boot has no line of the module"
	# an administrator who tries anyway
	! modprobe fchmodat2 2>"$tmp/modprobe" && [ ! -d /sys/module/fchmodat2 ] &&
		grep -q 'Operation not supported' "$tmp/modprobe" &&
		[ "$(dmesg | grep 'fchmodat2: ' | grep -vc taint)" = 1 ] &&
		dmesg | grep -q 'fchmodat2: this kernel already implements fchmodat2: the module is not needed'
	step $? "modprobe fchmodat2 fails ($(cat "$tmp/modprobe")), one kernel log line: $(dmesg | grep 'fchmodat2: ' | grep -v taint)"
	status_json
	[ "$st_rc" = 0 ] && echo "$json" | grep -q '"state": *"native"' &&
		echo "$json" | grep -q '"placeholder": *true' &&
		echo "$json" | grep -q '"reason": *"not needed: the kernel has fchmodat2 (DKMS built a placeholder'
	step $? "fchmodat2ctl status --json: native (exit 0), the installed module a placeholder"
	run subsys_chmod_tap "$tmp" "$F2/trixie" 452
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"
	remove_all
}

# --- the second kernel of the series, installed in boot 2

# loaded_at_boot KREL: the unit loaded the module DKMS built for KREL at
# boot (the package's version; its next one after make check-full's
# upgrade), and it serves
loaded_at_boot() {
	local jr want=$ver
	# make check-full upgraded the package in boot 2: DKMS then built the
	# new version for every installed kernel, this one included
	[ -f "$F2/NEXT" ] && want=$(cat "$F2/NEXT")
	system_checks "$1"
	jr=$(journalctl -b -u fchmodat2.service --no-pager -o cat)
	echo "$jr" | sed 's/^/#   /'
	[ -d /sys/module/fchmodat2 ] &&
		echo "$jr" | grep -q "fchmodat2ctl: module loaded (version $want)" &&
		[ "$(systemctl show -P Result fchmodat2.service)" = success ]
	step $? "fchmodat2.service loaded the module at boot, and succeeded"
	case $(modinfo -n fchmodat2 2>/dev/null) in
	/lib/modules/"$1"/updates/*) true ;; *) false ;; esac
	step $? "the module is DKMS's for $1: $(modinfo -n fchmodat2 2>/dev/null)"
	status_json
	[ "$st_rc" = 0 ] && echo "$json" | grep -q '"state": *"module"'
	step $? "fchmodat2ctl status --json: served by the module (exit 0)"
	run subsys_chmod_tap "$tmp" "$F2/trixie" 452
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"
	run "$SUBSYS_BIN/fchmodat2_test32" -d "$tmp"
}

series_boot() {
	echo "# ===== $series, the series' newer ABI installed in boot 2 (the kernel upgrade)"
	loaded_at_boot "$series"
}

cloud_boot() {
	echo "# ===== $cloud, the second kernel of the series installed in boot 2"
	loaded_at_boot "$cloud"
	[ "$release" = bullseye ] && remove_all
}

# --- Secure Boot (run.sh boots sb1 and sb2 through OVMF, shim and GRUB)

# unsigned_copy KO OUT: KO (decompressed) without its appended signature
# (the 28-byte marker, after the 12-byte struct module_signature whose last
# 4 bytes are the signature's length, big-endian)
unsigned_copy() {
	local size len
	case $1 in
	*.xz) xz -dc "$1" >"$2.signed" ;;
	*.zst) zstd -qdc "$1" >"$2.signed" ;;
	*) cp "$1" "$2.signed" ;;
	esac || return 1
	[ "$(tail -c 28 "$2.signed")" = '~Module signature appended~' ] || return 1
	size=$(stat -c %s "$2.signed")
	len=$(tail -c 32 "$2.signed" | head -c 4 | od -An -tu1 |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 40 - len)) "$2.signed" >"$2" && rm -f "$2.signed"
}

# what every Secure Boot boot shows: the firmware booted with Secure
# Boot, through Debian's shim, and the kernel locked itself down
sb_checks() {
	local sb enf
	sb=$(mokutil --sb-state 2>&1)
	echo "# mokutil --sb-state: $sb"
	[ "$sb" = "SecureBoot enabled" ]
	step $? "the firmware booted with Secure Boot (mokutil --sb-state: $sb)"
	grep -q '\[integrity\]' /sys/kernel/security/lockdown
	step $? "the kernel locked itself down: $(cat /sys/kernel/security/lockdown)"
	dmesg | grep -q 'Kernel is locked down from EFI Secure Boot'
	step $? "the kernel saw Secure Boot: $(dmesg | grep -m 1 -i 'secure boot enabled\|locked down from EFI')"
	# x86's IMA arch policy enforces module signatures under Secure
	# Boot (set_module_sig_enforced()): refusals are EKEYREJECTED, not
	# lockdown's EPERM
	enf=$(cat /sys/module/module/parameters/sig_enforce)
	[ "$enf" = Y ]
	step $? "module signatures are enforced (sig_enforce $enf), with no module.sig_enforce on the command line"
}

sb_boot1() {
	local ko out rc
	echo "# ===== Secure Boot, DKMS's key not enrolled"
	sb_checks
	[ "$(uname -r)" = "$krel" ]
	step $? "the guest runs Debian 12's signed $krel ($(uname -r))"
	mokutil --test-key /var/lib/dkms/mok.pub 2>&1 | sed 's/^/#   /'
	mokutil --test-key /var/lib/dkms/mok.pub 2>&1 | grep -q 'is not enrolled'
	step $? "mokutil --test-key: DKMS's key is not enrolled"
	# the package's unit tried at boot, and said why it could not
	failed_units=$(systemctl --failed --no-legend --plain | awk '{ print $1 }' | paste -sd' ')
	[ "$failed_units" = fchmodat2.service ]
	step $? "the one failed unit is fchmodat2.service (failed: ${failed_units:-none})"
	jr=$(journalctl -b -u fchmodat2.service --no-pager -o cat)
	echo "$jr" | sed 's/^/#   /'
	echo "$jr" | grep -q 'mokutil --import /var/lib/dkms/mok.pub'
	step $? "fchmodat2.service's log says why, and how to enrol DKMS's key"
	[ ! -d /sys/module/fchmodat2 ] && f2_probe | grep -q ENOSYS
	step $? "nothing is loaded: 452 is ENOSYS ($(f2_probe))"
	# the administrator tries
	fchmodat2ctl load 2>"$tmp/load"
	rc=$?
	sed 's/^/#   /' "$tmp/load"
	[ "$rc" != 0 ] && [ "$(wc -l <"$tmp/load")" = 1 ] &&
		grep -q 'module is signed, but by a key this kernel does not trust.*mokutil --import /var/lib/dkms/mok.pub.*\[EKEYREJECTED\]' "$tmp/load"
	step $? "fchmodat2ctl load fails (exit $rc) in one line: untrusted key, mokutil --import"
	! modprobe fchmodat2 2>"$tmp/modprobe" &&
		grep -q 'Key was rejected by service' "$tmp/modprobe"
	step $? "modprobe fchmodat2 fails: $(cat "$tmp/modprobe")"
	dmesg | grep -q 'Loading of module with unavailable key is rejected'
	step $? "the kernel log: $(dmesg | grep -m 1 'Loading of module with')"
	ko=$(modinfo -n fchmodat2)
	unsigned_copy "$ko" "$tmp/unsigned.ko" && [ -z "$(modinfo -F signer "$tmp/unsigned.ko")" ]
	step $? "an unsigned copy of $ko (its signature cut off)"
	out=$(insmod "$tmp/unsigned.ko" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && echo "$out" | grep -q 'Key was rejected by service' &&
		dmesg | grep -q 'Loading of unsigned module is rejected'
	step $? "insmod of the unsigned module fails: $out"
	[ ! -d /sys/module/fchmodat2 ]
	step $? "no fchmodat2 module is loaded"
}

sb_boot2() {
	local out rc fn
	echo "# ===== Secure Boot, DKMS's key enrolled as a MOK"
	system_checks
	sb_checks
	mokutil --test-key /var/lib/dkms/mok.pub 2>&1 | sed 's/^/#   /'
	mokutil --test-key /var/lib/dkms/mok.pub 2>&1 | grep -q 'is already enrolled'
	step $? "mokutil --test-key: DKMS's key is enrolled"
	# (/proc/keys cuts the type to 9 characters: "asymmetri")
	grep -q ' asymmetri DKMS module signing key: ' /proc/keys
	step $? "the kernel loaded it from shim's MokListRT: $(grep -m 1 'DKMS module signing key' /proc/keys | cut -c 60-)"
	jr=$(journalctl -b -u fchmodat2.service --no-pager -o cat)
	echo "$jr" | sed 's/^/#   /'
	[ -d /sys/module/fchmodat2 ] &&
		echo "$jr" | grep -q "fchmodat2ctl: module loaded (version $(modinfo -F version fchmodat2))" &&
		[ "$(systemctl show -P Result fchmodat2.service)" = success ]
	step $? "fchmodat2.service loaded the DKMS-signed module at boot, locked down"
	[ "$(cat /sys/module/fchmodat2/taint)" = O ]
	step $? "its taint is out-of-tree only: $(cat /sys/module/fchmodat2/taint) (no E: its signature was verified)"
	# what the module registers at load (ftrace, kprobes) works locked
	# down: it loaded, and ftrace lists its hook on the function its
	# mechanism names ("x86_64 syscall_trace_enter direct call")
	fn=$(cut -d' ' -f2 /sys/module/fchmodat2/mechanism 2>/dev/null)
	echo "# enabled_functions: $(grep -A 1 "^$fn[ .]" /sys/kernel/tracing/enabled_functions 2>&1 | tr -s '\t' ' ' | paste -sd' ')"
	[ -n "$fn" ] && grep -q "^$fn[ .]" /sys/kernel/tracing/enabled_functions
	step $? "ftrace lists the module's hook on $fn (tracefs, allowed under lockdown integrity)"
	status_json
	[ "$st_rc" = 0 ] && echo "$json" | grep -q '"state": *"module"' &&
		echo "$json" | grep -q '"signed": *true' &&
		echo "$json" | grep -q '"lockdown": *"integrity"'
	step $? "fchmodat2ctl status --json: served by the module (exit 0), signed, lockdown integrity"
	run subsys_chmod_tap "$tmp" "$F2/trixie" 452
	run "$SUBSYS_BIN/fchmodat2_test" -d "$tmp"
	run "$SUBSYS_BIN/fchmodat2_test32" -d "$tmp"
	# an unsigned build: refused
	unsigned_copy "$(modinfo -n fchmodat2)" "$tmp/unsigned.ko"
	step $? "an unsigned copy of the module (its signature cut off)"
	quiet fchmodat2ctl unload
	step $? "fchmodat2ctl unload"
	out=$(insmod "$tmp/unsigned.ko" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && echo "$out" | grep -q 'Key was rejected by service' &&
		[ ! -d /sys/module/fchmodat2 ]
	step $? "insmod of the unsigned module fails: $out"
	dmesg | grep -q 'Loading of unsigned module is rejected'
	step $? "the kernel log: $(dmesg | grep -m 1 'Loading of unsigned module')"
	quiet fchmodat2ctl load
	step $? "fchmodat2ctl load: the signed module loads again"
}

# unload, then remove every package: nothing stays
remove_all() {
	local was=loaded en
	[ -d /sys/module/fchmodat2 ] || was='nothing loaded: nothing to do'
	quiet fchmodat2ctl unload
	step $? "fchmodat2ctl unload ($was)"
	[ ! -d /sys/module/fchmodat2 ]
	step $? "no fchmodat2 module is loaded"
	echo "# apt-get remove fchmodat2-dkms fchmodat2ctl libfchmodat2-0"
	quiet env DEBIAN_FRONTEND=noninteractive apt-get remove -y \
		fchmodat2-dkms fchmodat2ctl libfchmodat2-0
	step $? "apt-get remove fchmodat2-dkms fchmodat2ctl libfchmodat2-0"
	# (stdout: with nothing registered, dkms 3.0.10 says "write error:
	# Broken pipe" on stderr)
	# (its status too: a dkms that cannot run prints nothing either)
	left=$(dkms status 2>/dev/null)
	drc=$?
	[ "$drc" = 0 ] && [ -z "$left" ]
	step $? "dkms status exits 0 and is empty (exit $drc)${left:+: $left}"
	left=$(modules_of; ls -d /usr/src/fchmodat2-* /var/lib/dkms/fchmodat2 \
		/usr/sbin/fchmodat2ctl 2>/dev/null)
	[ -z "$left" ]
	step $? "no module under /lib/modules, no sources, no DKMS state, no tool left${left:+: $left}"
	# (apt remove: dh_installsystemd's postrm masks the unit until purge;
	# Debian 11's systemctl cat shows a masked unit and exits 0, Debian
	# 12's exits 1: the unit's state is asked instead)
	en=$(systemctl is-enabled fchmodat2.service 2>&1)
	[ ! -e /lib/systemd/system/fchmodat2.service ] &&
		[ ! -e /etc/systemd/system/sysinit.target.wants/fchmodat2.service ] &&
		! systemctl is-active -q fchmodat2.service &&
		case $en in masked | *"No such file"*) true ;; *) false ;; esac
	step $? "fchmodat2.service is gone, enabled nowhere, inactive (is-enabled: $en)"
}

# after boot 2 (3 with a package upgrade); the series' newer ABI before
# the cloud flavour when there is one (tests/debian-system/run.sh boots
# the same chain)
then_cloud=cloud
[ -n "$series" ] && then_cloud=series
after=sb1
[ "$release" = bullseye ] && after=$then_cloud
case $phase in
1) boot1; next=2 ;;
2) boot2; next=3; [ -f "$F2/NEXT" ] || next=$after ;;
3) boot3; next=$after ;;
sb1) sb_boot1; next=sb2 ;;
sb2) sb_boot2; next=$then_cloud ;;
series) series_boot; next=cloud ;;
native) native_boot; next=done ;;
cloud) cloud_boot; next=done; [ "$release" = bookworm ] && next=native ;;
*) step 1 "unknown phase $phase"; next=done ;;
esac
kernel_log_checks
rc=0
finish || rc=1
rm -rf "$tmp"
if [ "$rc" = 0 ] && [ "$next" != done ]; then
	echo "$next" >"$state/phase"
	next=reboot
else
	echo "done" >"$state/phase"
	next=poweroff
fi
sync
dmesg >"$status"
echo "F2-STATUS $rc" >"$status"
# QEMU runs with -no-reboot: a reboot ends it, and run.sh boots the disk
# again.
systemctl --no-block "$next"
