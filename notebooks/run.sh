#!/usr/bin/env bash
# Executes every notebook in notebooks/ headlessly with Debian's Jupyter
# (/usr/bin/python3), installing it, pandas and matplotlib from Debian's
# packages if missing (no pip). The executed copies go to a temporary
# directory (kept in $NOTEBOOK_RESULTS if set), so the notebooks in the repo
# stay without outputs. Exits non-zero if any cell fails.
#
#   bash notebooks/run.sh               # all notebooks
#   bash notebooks/run.sh notebooks/seeds.ipynb
#   SIM_BIN=/path/to/sim bash notebooks/run.sh   # use a built binary instead of go run
set -euo pipefail
cd "$(dirname "$0")/.."

missing() {
	[ -x /usr/bin/jupyter-nbconvert ] || return 0
	/usr/bin/python3 -c 'import pandas, matplotlib, ipykernel, nbconvert' 2>/dev/null || return 0
	return 1
}
if missing; then
	echo "notebooks: installing jupyter-nbconvert, python3-ipykernel, python3-pandas, python3-matplotlib" >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib >/dev/null
fi

# The kernel runs /usr/bin/python3; go must be on its PATH for `go run`.
export PATH="$PATH:/usr/local/go/bin"
# debugpy's "frozen modules" notice on every kernel start
export PYDEVD_DISABLE_FILE_VALIDATION=1
tmp=${NOTEBOOK_RESULTS:-}
if [ -z "$tmp" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp"
export NOTEBOOK_OUT="$tmp/outputs"
# Build the simulator once for every notebook, unless one was given.
if [ -z "${SIM_BIN:-}" ]; then
	go build -o "$tmp/sim" ./cmd/sim
	export SIM_BIN="$tmp/sim"
fi

if [ $# -gt 0 ]; then nbs=("$@"); else nbs=(notebooks/*.ipynb); fi
start=$SECONDS
/usr/bin/python3 -m jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 \
	--output-dir "$tmp" "${nbs[@]}"
echo "notebooks: executed ${#nbs[@]} notebook(s) in $((SECONDS - start)) s${NOTEBOOK_RESULTS:+, results in $tmp}"
