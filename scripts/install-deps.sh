#!/usr/bin/env bash
# Installs everything gpuplan needs to build and test, from Debian packages.
# Safe to run again; does nothing when all packages are present.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev libfmt-dev
  libexpected-dev libcurl4-openssl-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  shellcheck cloud-init python3 clang-format
  wrk
  # `make deb` and its test: cpack's dpkg-shlibdeps step finds ELF files with file(1).
  file
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
