#!/usr/bin/env bash
# Fetch a real HIP runtime and its headers from Debian's archive into a private
# prefix, without touching the system's apt sources, lists or dpkg database:
#
#   ci/fetch-hip.sh 6.4    # libamdhip64-dev + libamdhip64-6 6.4.x (Debian unstable)
#   ci/fetch-hip.sh 7.2    # libamdhip64-dev + libamdhip64-7 7.2.x (Debian experimental)
#
# Exit codes: 0 (prints the prefix), 2 usage, 3 a broken local set-up, 77 the
# archive cannot be reached or no longer has that version.
#
# Prints the prefix (target/hip-matrix/<version>/root). Under it:
#   usr/include/hip/...                         the headers (HIP_PATH=<root>/usr)
#   usr/lib/x86_64-linux-gnu/libamdhip64.so.N   the runtime and the ROCm libraries it needs
# and beside it, in target/hip-matrix/<version>/sysroot, unstable's C runtime
# (glibc, its loader usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2, libstdc++,
# libgcc): these runtimes need glibc >= 2.38 and a newer libstdc++ than Debian
# 12 ships, so they run under that loader with
#   --library-path <sysroot>/usr/lib/x86_64-linux-gnu:<root>/usr/lib/x86_64-linux-gnu
# Kept apart because a binary built against the root has a run path to the
# root's lib directory: a glibc there would be picked up by the system loader.
# The whole dependency closure is resolved by apt as for an empty system
# (Dir::State::status=/dev/null), downloaded once and cached under
# target/hip-matrix/apt; a second call with everything present does nothing.
set -euo pipefail

version="${1:-}"
case "$version" in
    6.4) suite=sid; runtime=libamdhip64-6; prefix_version=6.4. ;;
    7.2) suite=experimental; runtime=libamdhip64-7; prefix_version=7.2. ;;
    *) echo "usage: $0 6.4|7.2" >&2; exit 2 ;;
esac

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
matrix="${CARGO_TARGET_DIR:-$root_dir/target}/hip-matrix"
dest="$matrix/$version/root"
stamp="$matrix/$version/.complete-2"
if [ -f "$stamp" ]; then
    echo "$dest"
    exit 0
fi

mirror="${XAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "$0: $keyring is missing (apt-get install debian-archive-keyring)" >&2; exit 3; }

apt_dir="$matrix/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
cat >"$apt_dir/sources.list" <<EOF
deb [signed-by=$keyring] $mirror sid main
deb [signed-by=$keyring] $mirror experimental main
EOF
apt_opts=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "Dir::State::status=/dev/null"
    -o "APT::Architecture=amd64"
    -o "APT::Architectures=amd64"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root"
)
if [ ! -f "$apt_dir/lists/.updated" ] || [ -n "$(find "$apt_dir/lists/.updated" -mmin +1440)" ]; then
    echo "$0: apt-get update (private lists in $apt_dir)" >&2
    # Exit 77: the archive is out of reach, which says nothing about this code.
    apt-get "${apt_opts[@]}" --error-on=any update -qq >&2 || { echo "$0: cannot update from the Debian archive ($mirror)" >&2; exit 77; }
    touch "$apt_dir/lists/.updated"
fi

# The exact versions, so the two runtimes never mix (experimental's -dev is 7.2).
pick() { # package -> newest version starting with $prefix_version in $suite
    apt-cache "${apt_opts[@]}" madison "$1" | awk -v s="$suite" -v p="$prefix_version" \
        '$0 ~ s"/main" && index($3, p) == 1 { print $3; exit }'
}
dev_version="$(pick libamdhip64-dev)"
rt_version="$(pick "$runtime")"
if [ -z "$dev_version" ] || [ -z "$rt_version" ]; then
    echo "$0: Debian $suite has no libamdhip64-dev/$runtime $version.x (any more?) (mirror $mirror)" >&2
    exit 77
fi
release=()
[ "$suite" = experimental ] && release=(-t experimental)
echo "$0: downloading libamdhip64-dev=$dev_version $runtime=$rt_version and their dependencies" >&2
apt-get "${apt_opts[@]}" "${release[@]}" install --download-only -y -qq \
    "libamdhip64-dev=$dev_version" "$runtime=$rt_version" >&2 ||
    { echo "$0: downloading HIP $version from $mirror failed" >&2; exit 77; }

sysroot="$matrix/$version/sysroot"
rm -rf "$dest" "$sysroot"
mkdir -p "$dest" "$sysroot"
# Extract exactly the packages of this closure (the cache may hold the other version's).
apt-get "${apt_opts[@]}" "${release[@]}" install -s -y "libamdhip64-dev=$dev_version" "$runtime=$rt_version" |
    awk '/^Inst / { v = $3; gsub(/[()\[\]]/, "", v); if ($3 ~ /^\[/) v = $4; gsub(/[()]/, "", v); print $2 "_" v }' |
    while read -r pkg_ver; do
        pkg="${pkg_ver%%_*}"
        ver="${pkg_ver#*_}"
        deb="$(ls "$apt_dir/cache/archives/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1)"
        [ -n "$deb" ] || { echo "$0: $pkg $ver was not downloaded" >&2; exit 3; }
        case "$pkg" in
            # The C runtime goes to the sysroot, everything else to the HIP root.
            libc6 | libc6-i386 | libc-gconv-modules-extra | libstdc++6 | libgcc-s1 | lib32gcc-s1 | lib32stdc++6 | gcc-*-base)
                dpkg-deb -x "$deb" "$sysroot" ;;
            *) dpkg-deb -x "$deb" "$dest" ;;
        esac
    done
touch "$stamp"
echo "$dest"
