#!/usr/bin/env bash
# The main job: a round robin between the reference bots on a whole local arena (a private
# Redis, a referee, one process per bot, a Celery worker), then the leaderboard.
# Extra arguments go to `pitch-arena demo` (e.g. --preset partnership --games 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/ensure-venv.sh"
bash "$root/scripts/ensure-sandbox.sh"
exec "$root/.venv/bin/pitch-arena" demo "$@"
