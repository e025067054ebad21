#!/bin/sh
# A store with a real price history: import time and per-command latency at
# 1 k, 10 k, 100 k and 300 k GPU price rows (bench/store_scale.py says how).
# Usage: bench/store_scale.sh BUILD_DIR   (make bench passes it)
set -eu
build=${1:-build}
exec python3 "$(dirname "$0")/store_scale.py" "$build"
