#!/usr/bin/env bash
# Regenerates cmd/sim/default.pgo: the CPU profile that Go's profile-guided
# optimisation (go build -pgo=auto, the default) builds cmd/sim with. It
# inlines and devirtualises the hot calls of the event loop; outputs are
# unchanged (bench/snapshot.sh), only the machine code differs.
#
# Run it after a change that moves the hot path (bench/README.md, "Profile-
# guided build"); takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/sim" ./cmd/sim
"$tmp/sim" --cpuprofile "$tmp/default.prof" compare --out "$tmp/o1" >/dev/null 2>&1
"$tmp/sim" --cpuprofile "$tmp/quota.prof" compare --scenario azure-production \
	--variant quota-fixed-lane --variant quota-scheduler --out "$tmp/o2" >/dev/null
"$tmp/sim" --cpuprofile "$tmp/incident.prof" compare --scenario incident-0214 --out "$tmp/o3" >/dev/null
go tool pprof -proto "$tmp"/*.prof >"$tmp/merged.pgo" 2>/dev/null
mv "$tmp/merged.pgo" cmd/sim/default.pgo
echo "wrote cmd/sim/default.pgo ($(wc -c <cmd/sim/default.pgo) bytes)"
