#!/usr/bin/env bash
# Installs the real components ARTT's tests run: Debian's Prometheus (started
# by the tests on loopback, never as a service), and iproute2, whose `ip`
# the live loop uses inside its own network namespace. Safe to run
# repeatedly.
set -euo pipefail

need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
  # The package may start a service on :9090; tests use their own ports.
  if command -v systemctl >/dev/null 2>&1; then "${as_root[@]}" systemctl stop prometheus 2>/dev/null || true; fi
fi
prometheus --version 2>&1 | head -1
