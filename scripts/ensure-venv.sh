#!/usr/bin/env bash
# Creates (once) and updates the project's virtualenv in .venv, then prints nothing but
# progress. Sourced by the README's commands so a fresh Debian/Ubuntu machine needs
# nothing but Python 3.11+; re-running is cheap: it reinstalls only when a pyproject changes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

find_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "Pitch Arena needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)." >&2
  return 1
}

if [ ! -x "$venv/bin/python" ]; then
  python="$(find_python)"
  echo "==> creating virtualenv $venv with $python" >&2
  if ! "$python" -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    # Debian/Ubuntu ship venv support separately (python3-venv).
    if command -v apt-get >/dev/null 2>&1; then
      sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
      version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
      echo "==> installing python3-venv with apt-get" >&2
      $sudo apt-get update -qq
      $sudo apt-get install -y -qq "python${version}-venv" || $sudo apt-get install -y -qq python3-venv
      "$python" -m venv "$venv"
    else
      echo "cannot create a virtualenv: install your distribution's python venv package" >&2
      exit 1
    fi
  fi
fi

stamp="$venv/.pitch-arena-installed"
wanted="$(cat "$root/pyproject.toml" "$root/sdk/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  echo "==> installing Pitch Arena and its dependencies into .venv" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet -e "$root/sdk" -e "$root[test]" >&2
  echo "$wanted" > "$stamp"
fi
