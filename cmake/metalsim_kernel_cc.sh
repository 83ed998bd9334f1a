#!/bin/sh
# The compiler launcher of kernel objects (CMake's CXX_COMPILER_LAUNCHER, set by
# metalsim_use_kernel_compiler in MetalsimMetal.cmake):
#
#   sh metalsim_kernel_cc.sh KERNEL_COMPILER ARG... -- PROJECT_COMPILER ITS_ARGUMENTS...
#
# CMake hands every compile of the target's sources to this script, as the command the
# project's compiler would run. The script runs KERNEL_COMPILER ARG... (ARG...:
# @metalsim_kernel_flags.rsp) on the same source instead, keeping from the project's command
# what the target itself says: its include directories and definitions (-I, -isystem, -D, -U:
# the usage requirements CMake computed, e.g. a library's INCLUDE_DIRS), which file to compile
# and where its object and dependency file go (-c, -o, -MD, -MT, -MF). The project's compile
# flags are dropped on purpose: the kernel flags are defined once, in METALSIM_KERNEL_FLAGS
# (MetalsimKernelCompiler.cmake). The object keeps the name and place CMake chose, so it stays
# part of the target (an OBJECT library: $<TARGET_OBJECTS>, linking and the static registrars of
# the kernels work as before).
set -eu

# The argument as one single-quoted shell word, for the eval at the end.
quote() { printf '%s' "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/"; }

kernel_cxx=$1
shift
prefix=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  prefix="$prefix $(quote "$1")"
  shift
done
if [ $# -lt 2 ]; then
  echo "metalsim_kernel_cc.sh: usage: KERNEL_COMPILER ARG... -- PROJECT_COMPILER ARGUMENTS..." >&2
  exit 2
fi
shift 2  # "--" and the project's compiler

source="" object="" kept=""
while [ $# -gt 0 ]; do
  case $1 in
    -c) source=$2; shift 2 ;;
    -o) object=$2; shift 2 ;;
    -MD) kept="$kept -MD"; shift ;;
    -MT | -MF | -isystem) kept="$kept $1 $(quote "$2")"; shift 2 ;;
    -I?* | -D?* | -U?*) kept="$kept $(quote "$1")"; shift ;;
    *) shift ;;
  esac
done
if [ -z "$source" ] || [ -z "$object" ]; then
  echo "metalsim_kernel_cc.sh: the project compiler's command names no -c SOURCE or -o OBJECT" >&2
  exit 2
fi
eval "exec $(quote "$kernel_cxx") $prefix $kept -o $(quote "$object") -c $(quote "$source")"
