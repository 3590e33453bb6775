#!/usr/bin/env bash
# Builds the real gits the test suite checks refscope against (reftable-capable: 2.47.3 from
# Debian trixie, 2.55.0 from sid, the 2026-07-31 `next` snapshot from experimental) from Debian's
# *source* packages into a cache outside the checkout, so later runs on the same machine reuse it.
#
#   REFSCOPE_GIT_CACHE   cache folder (default /var/cache/refscope-git)
#
# Layout: $cache/<upstream version>/src (the built tree: bin-wrappers/git, t/helper/test-tool),
# $cache/<upstream version>/OK once the build passed its smoke check. test/lib/realgit.ts reads it.
# Needs root for apt-get (CI and the developer machines run as root); with no network it fails
# and the real-git tests say so and are skipped.
set -euo pipefail
cache="${REFSCOPE_GIT_CACHE:-/var/cache/refscope-git}"
versions=("1:2.47.3-0+deb13u1" "1:2.55.0-1" "1:2.55.0+next.20260731-1")
mkdir -p "$cache"

missing=0
for v in "${versions[@]}"; do
  up="${v#*:}"; up="${up%-*}"
  [ -f "$cache/$up/OK" ] || missing=1
done
if [ "$missing" = 0 ]; then echo "setup-git: all gits cached in $cache"; exit 0; fi

list=/etc/apt/sources.list.d/refscope-git-src.sources
if [ ! -f "$list" ]; then
  cat >"$list" <<LIST
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie sid experimental
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
  # Only the source lists of those suites; binaries stay bookworm's.
  apt-get update -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=/etc/apt/sources.list.d >/dev/null
fi
command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y dpkg-dev
[ -f /usr/include/zlib.h ] || DEBIAN_FRONTEND=noninteractive apt-get install -y zlib1g-dev

jobs="$(nproc)"
for v in "${versions[@]}"; do
  up="${v#*:}"; up="${up%-*}"
  dir="$cache/$up"
  [ -f "$dir/OK" ] && continue
  rm -rf "$dir"; mkdir -p "$dir/dl"
  echo "setup-git: fetching git=$v"
  (cd "$dir/dl" && apt-get source --only-source -q "git=$v" >/dev/null 2>"$dir/fetch.log") || {
    echo "setup-git: apt-get source git=$v failed (see $dir/fetch.log)"; exit 1; }
  src="$(find "$dir/dl" -maxdepth 1 -mindepth 1 -type d -name 'git-*' | head -1)"
  mv "$src" "$dir/src"
  rm -rf "$dir/dl"
  echo "setup-git: building $up (make -j$jobs)"
  make -C "$dir/src" -j"$jobs" NO_CURL=1 NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 \
    NO_EXPAT=1 NO_OPENSSL=1 all t/helper/test-tool >"$dir/build.log" 2>&1 || {
    echo "setup-git: build of $up failed (tail of $dir/build.log):"; tail -20 "$dir/build.log"; exit 1; }
  "$dir/src/bin-wrappers/git" --version >"$dir/version.txt"
  touch "$dir/OK"
  echo "setup-git: $(cat "$dir/version.txt") ready in $dir/src"
done
