#!/usr/bin/env bash
# Installs (once) Debian's bubblewrap, the sandbox of hosted bots (hosting/), with apt-get when
# /usr/bin/bwrap is missing, then checks that it can make an unprivileged user namespace (as the
# bot host runs it). Run by the README's commands; does nothing when it is already there.
set -euo pipefail
if [ ! -x /usr/bin/bwrap ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "hosted bots need bubblewrap (/usr/bin/bwrap; Debian package bubblewrap): install it" >&2
    exit 1
  fi
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "==> installing bubblewrap with apt-get (the hosted bots' sandbox)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
fi
# The bot host runs bubblewrap as an unprivileged uid: user namespaces must be allowed to it.
probe=(/usr/bin/bwrap --unshare-all --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
       --symlink usr/lib64 /lib64 -- /bin/true)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
  probe=(setpriv --reuid 65534 --regid 65534 --clear-groups "${probe[@]}")
fi
if ! "${probe[@]}" 2>/dev/null; then
  echo "warning: bubblewrap cannot make an unprivileged user namespace here: hosted bots will not start." >&2
  echo "  Allow them: sysctl -w kernel.unprivileged_userns_clone=1 (Debian before 11)," >&2
  echo "  user.max_user_namespaces > 0, and on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0." >&2
fi
