#!/usr/bin/env bash
# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# Installs the Debian packages CascadeDB builds, tests and benchmarks with.
# Idempotent: only missing packages are installed, and `apt-get update` runs
# only when something is missing. Set CASCADEDB_WITH_PEERS=1 to also install
# LevelDB and RocksDB for side-by-side benchmarks.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libsnappy-dev liblz4-dev libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgflags-dev
  python3-matplotlib
  clang clang-format
)
if [[ "${CASCADEDB_WITH_PEERS:-0}" == "1" ]]; then
  packages+=(libleveldb-dev librocksdb-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
