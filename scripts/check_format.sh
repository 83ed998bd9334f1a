#!/usr/bin/env bash
# The format check: every C++ file the change touches must be as clang-format-19 writes it with
# the root .clang-format. "The change" is what differs from BASE: the first argument, else
# $METALSIM_FORMAT_BASE, else the merge base with origin/main when HEAD is ahead of it, else the
# parent commit (a fresh clone, where origin/main is HEAD); changes not yet committed count too,
# new files not yet added among them. The MSL headers (simt/include, *_msl.h) and .metal files
# keep Metal's own layout and are not checked. `scripts/check_format.sh --fix [BASE]` formats them instead.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi
formatter="$(command -v clang-format-19 || true)"
if [ -z "$formatter" ]; then
  echo "check_format: clang-format-19 is missing (scripts/setup.sh installs it)" >&2
  exit 1
fi

base="${1:-${METALSIM_FORMAT_BASE:-}}"
if [ -z "$base" ] && git rev-parse -q --verify origin/main >/dev/null; then
  merge_base="$(git merge-base HEAD origin/main)"
  if [ "$merge_base" != "$(git rev-parse HEAD)" ]; then base="$merge_base"; fi
fi
if [ -z "$base" ] && git rev-parse -q --verify HEAD~1 >/dev/null; then
  base="HEAD~1"
fi
if [ -z "$base" ]; then
  echo "check_format: no base commit to compare with (a single-commit clone): nothing to check"
  exit 0
fi

# New files count too before they are added (git diff does not list untracked files).
mapfile -t files < <({ git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.h' '*.hpp'
                       git ls-files --others --exclude-standard -- '*.cpp' '*.h' '*.hpp'; } |
                     grep -v -e '^simt/include/' -e '_msl\.h$' | sort -u)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format: no C++ file changed since $(git rev-parse --short "$base")"
  exit 0
fi
if [ "$fix" -eq 1 ]; then
  "$formatter" -i "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} changed files are not formatted (scripts/check_format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} changed files formatted"
