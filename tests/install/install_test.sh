#!/usr/bin/env bash
# Install and package (issue 14), reusing the built tree: `cmake --install`
# into a temporary prefix, then from another folder that prefix's gpuplan
# prints its version, plans an example and serves the web page and API (the
# server module found in lib/gpuplan); a bare copy of the binary says where
# it looked for the module and exits 3; the completion and man page are
# installed. Then `cpack -G DEB` builds the .deb, whose contents list is
# checked, and which dpkg installs into a private root and database (never
# this machine's), where it serves too, and purges cleanly.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
# shellcheck source=tests/install/common.sh
. "$(dirname "$0")/common.sh"
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# No user store or home: the embedded catalog only.
export XDG_DATA_HOME=$tmp/xdg HOME=$tmp/home
cd "$tmp"

# GET PATH from 127.0.0.1:PORT, the whole response (bash's /dev/tcp, 5 s at most).
# shellcheck disable=SC2016  # $1, $2 are the inner shell's arguments
http_get() {
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"
    printf "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" "$2" >&3
    cat <&3' _ "$1" "$2"
}

# Runs BIN serve --port 0, reads the port it prints, fetches the health
# route and the page, stops it with SIGTERM and expects exit 0.
check_serves() {
  local bin=$1 log=$tmp/serve.log port=""
  "$bin" serve --port 0 >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do  # 10 s at most
    port=$(sed -n 's|^gpuplan: serving on http://127.0.0.1:\([0-9]*\)/$|\1|p' "$log")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "$bin serve exited: $(cat "$log")"
    sleep 0.1
  done
  [ -n "$port" ] || fail "$bin serve printed no port: $(cat "$log")"
  local health page
  health=$(http_get "$port" /api/health) || true
  page=$(http_get "$port" /) || true
  kill -TERM "$server_pid"
  local rc=0
  wait "$server_pid" || rc=$?
  server_pid=""
  grep -q '^HTTP/1.1 200' <<<"$health" || fail "$bin: /api/health: $health"
  grep -q '"ok"' <<<"$health" || fail "$bin: /api/health: $health"
  grep -qi '<html' <<<"$page" || fail "$bin: / served no page: $(head -5 <<<"$page")"
  [ "$rc" -eq 0 ] || fail "$bin serve exited $rc after SIGTERM"
}

# Every file the install must hold, relative to the prefix; $1 is the zsh folder.
installed_files() {
  echo bin/gpuplan
  echo lib/gpuplan/gpuplan-serve.so
  echo share/bash-completion/completions/gpuplan
  echo "$1/_gpuplan"
  echo share/man/man1/gpuplan.1
}

# ---- cmake --install into a temporary prefix
start=$SECONDS
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in $(installed_files share/zsh/site-functions); do
  [ -f "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
gpuplan=$tmp/prefix/bin/gpuplan
want_version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
got_version=$("$gpuplan" --version)
[ "${got_version%%$'\n'*}" = "gpuplan $want_version" ] ||
  fail "--version says '$got_version', the project is $want_version"
"$gpuplan" plan "$src/examples/finetune-llama3-8b.yaml" >"$tmp/plan.txt" ||
  fail "plan exited $?: $(cat "$tmp/plan.txt")"
grep -q 'Standard_N' "$tmp/plan.txt" || fail "plan chose no VM size: $(head -20 "$tmp/plan.txt")"
check_serves "$gpuplan"
cmp -s "$tmp/prefix/share/bash-completion/completions/gpuplan" <("$gpuplan" completion bash) ||
  fail "the installed bash completion is not what the installed binary writes"
echo "install: ok ($((SECONDS - start)) s)"

# ---- a binary copied without its module says where it looked, exit 3
mkdir -p "$tmp/bare"
cp "$gpuplan" "$tmp/bare/gpuplan"
rc=0
"$tmp/bare/gpuplan" serve --port 0 >"$tmp/bare.log" 2>&1 || rc=$?
[ "$rc" -eq 3 ] || fail "a binary without its module exited $rc: $(cat "$tmp/bare.log")"
grep -q "cannot find the server module gpuplan-serve.so (looked in $tmp/bare/" "$tmp/bare.log" ||
  fail "no 'cannot find the server module': $(cat "$tmp/bare.log")"

# ---- the .deb
start=$SECONDS
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >"$tmp/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -20 "$tmp/cpack.log")"
deb=$(ls "$tmp"/deb/gpuplan_*.deb)
dpkg-deb -c "$deb" >"$tmp/contents.txt"
for f in $(installed_files share/zsh/vendor-completions); do
  grep -q " \./usr/$f\$" "$tmp/contents.txt" || fail "$deb lacks /usr/$f: $(cat "$tmp/contents.txt")"
done
[ "$(dpkg-deb -f "$deb" Package)" = gpuplan ] || fail "$deb is not package gpuplan"
[ "$(dpkg-deb -f "$deb" Version)" = "$want_version" ] || fail "$deb has the wrong version"
depends=$(dpkg-deb -f "$deb" Depends)
grep -q 'libc6' <<<"$depends" || fail "$deb Depends lacks libc6: $depends"
recommends=$(dpkg-deb -f "$deb" Recommends)
grep -q 'libcurl4' <<<"$recommends" || fail "$deb does not recommend libcurl4 (catalog import --live)"
grep -q 'libjs-chart.js' <<<"$recommends" || fail "$deb does not recommend libjs-chart.js (the page's charts)"
# Each dependency names a package this machine has (dpkg-shlibdeps found them).
read -ra packages <<<"$(sed 's/([^)]*)//g; s/,/ /g' <<<"$depends")"
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
    fail "$deb depends on $p, which is not an installed package here"
done
# Installed by dpkg itself, into a private root and database (never this
# system's): unpacks, configures, runs and serves; purging leaves nothing.
root=$tmp/root admin=$tmp/dpkg
mkdir -p "$root" "$admin/info" "$admin/updates"
touch "$admin/status" "$admin/available"
private_dpkg() {
  dpkg --force-not-root --force-depends --force-script-chrootless \
    --instdir="$root" --admindir="$admin" "$@" >>"$tmp/dpkg.log" 2>&1 ||
    fail "dpkg $*: $(cat "$tmp/dpkg.log")"
}
private_dpkg -i "$deb"
got_version=$("$root/usr/bin/gpuplan" --version)
[ "${got_version%%$'\n'*}" = "gpuplan $want_version" ] ||
  fail "the packaged binary's --version says '$got_version'"
check_serves "$root/usr/bin/gpuplan"
private_dpkg --purge gpuplan
left=$(find "$root" -type f)
[ -z "$left" ] || fail "dpkg --purge left files: $left"
echo "deb: ok ($((SECONDS - start)) s, $(stat -c %s "$deb") bytes, Depends: $depends)"
