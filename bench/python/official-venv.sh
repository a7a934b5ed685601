#!/usr/bin/env bash
# Makes .venv-official (the official GEAR judge client's imports, from PyPI) for bench/judge-routing.ts
# and prints its python. Recreated when requirements-official.txt changes.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-official
reqs=bench/python/requirements-official.txt
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$reqs" "$venv/.gear-reqs-stamp"; then
  echo "bench: creating $venv and installing $reqs" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs" >&2
  cp "$reqs" "$venv/.gear-reqs-stamp"
fi
echo "$PWD/$venv/bin/python"
