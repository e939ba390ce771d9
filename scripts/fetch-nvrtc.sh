#!/usr/bin/env bash
# fetch-nvrtc.sh — fetch NVIDIA's runtime CUDA compiler (NVRTC) from Debian's
# non-free archive into a private folder, without a GPU, a CUDA toolkit, or
# any change to the machine's apt configuration or state.
#
# Usage:
#   scripts/fetch-nvrtc.sh [DEST]
#
#   DEST defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/gpucrypto/nvrtc.
#   The libraries land in DEST/lib, and that folder's path is the only thing
#   printed on standard output, so CI can write:
#
#     export GPUCRYPTO_NVRTC_DIR="$(scripts/fetch-nvrtc.sh)"
#
#   When DEST/lib already holds libnvrtc.so*, the script prints the folder and
#   exits at once without touching the network.
#
# Environment (all optional):
#   GPUCRYPTO_DEBIAN_MIRROR  Debian mirror (default: the one the machine's own apt
#                            sources use for the main archive)
#   GPUCRYPTO_DEBIAN_SUITE   Debian suite (default bookworm; bookworm-updates is
#                            added as SUITE-updates)
#   GPUCRYPTO_NVRTC_PACKAGES packages to fetch (default
#                            "libnvrtc11.2 libnvrtc-builtins11.8")
#
# How it keeps the machine untouched: apt-get runs with a private
# configuration file (-c) that points the source list, source parts, package
# lists, caches, dpkg status and logs at a temporary folder, and clears the
# update and dpkg hooks that this machine's apt.conf.d installs (they delete
# cached packages and refresh AppStream / PackageKit). Package signatures are
# still checked against the Debian archive keyring.
#
# Progress messages go to standard error; any failure exits non-zero with a
# message that says what went wrong.
set -euo pipefail

die() {
	printf 'fetch-nvrtc: error: %s\n' "$*" >&2
	exit 1
}
note() {
	printf 'fetch-nvrtc: %s\n' "$*" >&2
}

case "${1:-}" in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0
	;;
esac
[ "$#" -le 1 ] || die "too many arguments (usage: $0 [DEST])"

default_dest="${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}/gpucrypto/nvrtc"
dest="${1:-$default_dest}"
# the machine's own Debian mirror: the first URI of its sources that serves
# the main archive (deb822 .sources files, then the one-line format)
machine_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f"
	done | head -n 1
	grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) print $i; break } }' | head -n 1
	return 0
}
mirror="${GPUCRYPTO_DEBIAN_MIRROR:-$(machine_mirror | head -n 1 || true)}"
[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources: set GPUCRYPTO_DEBIAN_MIRROR"
suite="${GPUCRYPTO_DEBIAN_SUITE:-bookworm}"
packages="${GPUCRYPTO_NVRTC_PACKAGES:-libnvrtc11.2 libnvrtc-builtins11.8}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# Fast path: already fetched.
have_nvrtc() {
	local f
	for f in "$1"/libnvrtc.so*; do
		[ -e "$f" ] && return 0
	done
	return 1
}
if have_nvrtc "$dest/lib"; then
	printf '%s\n' "$dest/lib"
	exit 0
fi

for tool in apt-get dpkg dpkg-deb mktemp; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' not found: this script needs a Debian-based system (apt and dpkg)"
done
[ -r "$keyring" ] ||
	die "$keyring is missing: install the debian-archive-keyring package"

# Root is needed only if the private apt run cannot work as this user; try
# without first (apt-get accepts an unprivileged update when every folder it
# writes is the user's own) and fall back to sudo if that fails.
as_root=()

work="$(mktemp -d "${TMPDIR:-/tmp}/fetch-nvrtc.XXXXXX")" ||
	die "cannot create a temporary folder"
cleanup() { rm -rf -- "$work"; }
trap cleanup EXIT
# apt drops privileges to its sandbox user (_apt) for downloads when run as
# root: that user must be able to reach the folders below.
chmod 0755 "$work"
mkdir -p "$work/etc/sources.list.d" "$work/lists/partial" "$work/cache/archives/partial" \
	"$work/log" "$work/debs" "$work/stage"
: >"$work/status"

{
	printf 'deb [signed-by=%s] %s %s non-free\n' "$keyring" "$mirror" "$suite"
	printf 'deb [signed-by=%s] %s %s-updates non-free\n' "$keyring" "$mirror" "$suite"
} >"$work/etc/sources.list"

# The private apt configuration, read after the machine's own (-c is applied
# after apt.conf and apt.conf.d), so every setting here wins.
cat >"$work/etc/apt.conf" <<EOF
Dir::Etc::SourceList "$work/etc/sources.list";
Dir::Etc::SourceParts "$work/etc/sources.list.d";
Dir::State::Lists "$work/lists";
Dir::State::status "$work/status";
Dir::State::extended_states "$work/extended_states";
Dir::Cache "$work/cache";
Dir::Cache::archives "$work/cache/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Dir::Log "$work/log";
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
#clear DPkg::Pre-Invoke;
#clear DPkg::Post-Invoke;
#clear DPkg::Pre-Install-Pkgs;
EOF
apt_opts=(-c "$work/etc/apt.conf" -q)

if [ "$(id -u)" -ne 0 ]; then
	# Unprivileged runs cannot hand the download folders to _apt.
	chmod 0700 "$work"
fi

note "updating private package lists ($mirror $suite non-free)"
if ! "${as_root[@]}" apt-get "${apt_opts[@]}" --error-on=any update >"$work/update.log" 2>&1; then
	if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
		note "apt-get update failed as $(id -un); retrying with sudo"
		as_root=(sudo)
		chmod 0755 "$work"
		"${as_root[@]}" apt-get "${apt_opts[@]}" --error-on=any update >"$work/update.log" 2>&1 || {
			cat "$work/update.log" >&2
			die "apt-get update failed (with sudo); see the log above"
		}
	else
		cat "$work/update.log" >&2
		die "apt-get update of the private package lists failed; see the log above"
	fi
fi
# apt-get update exits 0 even when a source could not be fetched; the
# package lookup below catches that, but surface warnings now.
grep -E '^(W|E):' "$work/update.log" >&2 || true

note "downloading: $packages"
# apt-get download writes into the current folder; as root it does so as the
# sandbox user, which must own that folder or apt warns and runs unsandboxed.
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
	chown _apt "$work/debs"
fi
# shellcheck disable=SC2086 # word splitting of the package list is intended
(cd "$work/debs" && "${as_root[@]}" apt-get "${apt_opts[@]}" download $packages) \
	>"$work/download.log" 2>&1 || {
	cat "$work/download.log" >&2
	die "apt-get download failed for: $packages"
}
if [ "${#as_root[@]}" -ne 0 ]; then
	"${as_root[@]}" chown -R "$(id -u):$(id -g)" "$work/debs"
fi

for pkg in $packages; do
	found=""
	for deb in "$work/debs/${pkg}"_*.deb; do
		[ -e "$deb" ] && found="$deb"
	done
	[ -n "$found" ] || die "package $pkg was not downloaded"
	note "unpacking $(basename "$found")"
	dpkg -x "$found" "$work/stage" || die "dpkg -x failed for $found"
done

# Copy the libraries, symlinks kept, into a fresh folder next to DEST/lib and
# move it into place only when complete, so an interrupted run never leaves a
# half-filled DEST/lib that the fast path would accept.
mkdir -p "$dest" || die "cannot create $dest"
staging_lib="$(mktemp -d "$dest/.lib.XXXXXX")" || die "cannot write into $dest"
count=0
while IFS= read -r -d '' so; do
	cp -a -- "$so" "$staging_lib/" || die "cannot copy $so"
	count=$((count + 1))
done < <(find "$work/stage" \( -type f -o -type l \) -name 'lib*.so*' -print0)
[ "$count" -gt 0 ] || die "the packages held no shared libraries"
have_nvrtc "$staging_lib" || die "no libnvrtc.so* in the packages"
chmod 0755 "$staging_lib"
rm -rf -- "$dest/lib"
mv -- "$staging_lib" "$dest/lib" || die "cannot move the libraries into $dest/lib"

for f in "$dest/lib"/*; do
	if [ -L "$f" ]; then
		note "  $(basename "$f") -> $(readlink "$f")"
	else
		note "  $(basename "$f") ($(wc -c <"$f") bytes)"
	fi
done
printf '%s\n' "$dest/lib"
