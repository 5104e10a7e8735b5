#!/usr/bin/env bash
# quickstart.sh: the README's first command. Installs what is missing,
# builds the release binaries into build/bin, and runs the main job on the
# bundled sample log: dgrep for ERROR lines, then a dmap query over the
# sample's MAPREDUCE:STATS records, per minute.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== dgrep --grep ERROR samples/app.log (first 5 lines)"
build/bin/dgrep --noColor --grep ERROR samples/app.log | head -n 5
echo "== matching lines: $(build/bin/dgrep --plain --grep ERROR samples/app.log | wc -l) of $(wc -l < samples/app.log)"
echo "== dmap: per-minute statistics of the MAPREDUCE:STATS records"
build/bin/dmap --noColor 'from STATS select bucket($time,1m),count($line),avg($goroutines),p95($goroutines),max(currentConnections) group by bucket($time,1m) limit 5' samples/app.log
echo "binaries: $(ls build/bin | tr '\n' ' ')"
