#!/usr/bin/env bash
# Installs the Debian packages metalsim builds with, if any is missing (with --mlx-backend, also
# those scripts/mlx_backend.sh needs). As root it runs
# apt-get itself; otherwise it prints the exact command and stops.
set -euo pipefail

packages=(
  g++ make cmake binutils             # compiler, build, addr2line for .metal lines in reports
  clang-19 llvm-19-dev                # kernels are compiled by clang++-19; the lane-loop pass plugin builds on LLVM 19
  libclang-rt-19-dev                  # libFuzzer for metalsim-libfuzzer (host/libfuzzer, docs/cli.md)
  clang-format-19                     # the format check over the files a change touches
  libomp-dev                          # OpenMP (GCC's libgomp comes with g++; this adds omp.h for clang users)
  libeigen3-dev                       # Eigen3: the references
  libboost-context-dev                # Boost.Context: fiber switches
  libgtest-dev libgmock-dev           # GoogleTest
  libbenchmark-dev                    # Google Benchmark
  libcli11-dev nlohmann-json3-dev     # the metalsim program: options and JSON
  pybind11-dev python3-dev python3-numpy  # the Python package (host/python, docs/python.md)
  python3-pytest python3-hypothesis   # its tests and examples (ctest runs them with pytest)
)
# scripts/mlx_backend.sh (MLX's Metal backend against metalsim, docs/mlx_backend.md): what MLX's
# build downloads otherwise, from Debian.
if [ "${1:-}" = "--mlx-backend" ]; then
  packages+=(libfmt-dev liblapack-dev liblapacke-dev libblas-dev doctest-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "metalsim setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "metalsim setup: missing Debian packages. Run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
