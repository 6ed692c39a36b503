#!/usr/bin/env bash
# The main job: a full game of partnership Pitch between built-in bots, printed hand by hand.
# Extra arguments go to `pitch-bot watch` (e.g. --ruleset cutthroat heuristic random random).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/ensure-venv.sh"
if [ "$#" -eq 0 ]; then
  set -- --ruleset partnership --seed 1 heuristic random heuristic random
fi
exec "$root/.venv/bin/pitch-bot" watch "$@"
