#!/usr/bin/env bash
# Installs (once) Debian's Chromium for the web arena's browser tests, which Playwright drives
# at /usr/bin/chromium (Playwright's own browser download is not used). Sourced by the
# README's test command; does nothing when Chromium is already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "the browser tests need Chromium at /usr/bin/chromium: install your distribution's chromium package" >&2
  exit 1
fi
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "==> installing chromium with apt-get (for the browser tests)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
