#!/usr/bin/env bash
# Installs everything gpuplan needs to build and test: Debian packages, then the
# browser test's pinned npm packages (tests/browser/package-lock.json).
# Safe to run again; does nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev libfmt-dev
  libexpected-dev libcurl4-openssl-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  shellcheck cloud-init python3
  # tests/schema/schema_test.py validates every command's JSON (docs/schema/).
  python3-jsonschema
  # scripts/ci.sh: the -Werror Clang build under ASan/UBSan, its libFuzzer
  # harnesses (the sanitizer and fuzzer runtimes are libclang-rt-dev, only
  # recommended by clang, so named here), llvm-symbolizer (in llvm) for
  # readable sanitizer reports, and the format and tidy checks.
  clang libclang-rt-dev llvm clang-format clang-tidy
  wrk
  # `make deb` and its test: cpack's dpkg-shlibdeps step finds ELF files with file(1).
  file
  # The web page's charts (served by `gpuplan serve`, embedded by
  # `simulate --plot`) and the headless browser its test drives.
  libjs-chart.js chromium
)
# Node.js and npm run the browser test. A machine may already have them from
# another source (whose nodejs conflicts with Debian's npm): only a missing
# command asks for Debian's packages.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# playwright-core only (no browser download: the test drives /usr/bin/chromium),
# at the versions package-lock.json pins; skipped when node_modules was made
# from this very lock file (the stamp is a copy of it).
browser=tests/browser
stamp="$browser/node_modules/.gpuplan-lock-stamp"
if ! cmp -s "$browser/package-lock.json" "$stamp"; then
  (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$browser/package-lock.json" "$stamp"
fi
