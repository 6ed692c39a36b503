#!/usr/bin/env bash
# The whole test suite: lint, types, unit, property, integration and slow end-to-end and browser tests.
# Extra arguments go to pytest (e.g. -m 'not slow' for a quick local run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-venv.sh
bash scripts/ensure-chromium.sh
bash scripts/ensure-kits.sh
bash scripts/ensure-sandbox.sh
echo "==> ruff" >&2
.venv/bin/ruff check sdk/src store competitions referee workers web hosting cli tests bench scripts
echo "==> mypy --strict (the SDK, the store, the competitions, every service and the CLI)" >&2
.venv/bin/mypy
echo "==> pytest" >&2
exec .venv/bin/python -m pytest -n 3 --dist loadgroup "$@"
