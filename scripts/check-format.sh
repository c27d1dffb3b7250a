#!/usr/bin/env bash
# Fails if a C/C++ file of the repository differs from what clang-format-19
# makes of it with the repo's .clang-format. `--fix` rewrites them instead.
# Run by scripts/test.sh; the version is pinned because formatting changes
# between clang-format releases.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CF="${CLANG_FORMAT:-clang-format-19}"
cd "$ROOT"
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' | grep -v '^test/.*/Inputs/')
if [[ "${1:-}" == "--fix" ]]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$CF" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} file(s) differ from $CF's formatting:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
