#!/usr/bin/env bash
# Replaces a generated block of bench/README.md, the lines between
# "<!-- NAME -->" and "<!-- end NAME -->", with FILE's lines; fails, the
# README untouched, if either marker is missing. The scripts that generate
# the README's tables (costgate_ir.sh through readme_table.sh, areas.sh,
# table.sh) write through it.
#
#   bash bench/readme_block.sh NAME FILE
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1 file=$2
readme=bench/README.md
grep -qxF "<!-- $name -->" "$readme" && grep -qxF "<!-- end $name -->" "$readme" ||
  { echo "readme_block.sh: $readme has no \"$name\" markers" >&2; exit 1; }
awk -v f="$file" -v first="<!-- $name -->" -v last="<!-- end $name -->" '
  $0 == first { print; while ((getline l < f) > 0) print l; skip = 1; next }
  $0 == last { skip = 0 }
  !skip' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
