#!/usr/bin/env bash
# The Python environment of the evaluation notebook (notebooks/compare.ipynb): a venv in
# .cita/venv-notebook with notebooks/requirements.txt installed. Idempotent: a stamp file holds the
# sha256 of the requirements it was built from; a venv whose stamp matches is kept as it is.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.cita/venv-notebook"
reqs="$root/notebooks/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(sha256sum "$reqs" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "notebook venv: present (.cita/venv-notebook, requirements ${want:0:12}…)"
  exit 0
fi

start=$SECONDS
# A venv left broken (no interpreter or no pip, e.g. an interrupted creation) is made anew.
if [[ -d "$venv" ]] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "notebook venv: .cita/venv-notebook is incomplete, recreating it"
  rm -rf "$venv"
fi
if [[ ! -x "$venv/bin/python" ]]; then
  echo "notebook venv: creating .cita/venv-notebook with $("$python" --version 2>&1)"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
elif [[ -f "$stamp" ]]; then
  echo "notebook venv: notebooks/requirements.txt changed, installing into .cita/venv-notebook"
else
  echo "notebook venv: no finished install recorded, installing into .cita/venv-notebook"
fi
rm -f "$stamp"
echo "notebook venv: pip install -r notebooks/requirements.txt"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$reqs"
# Written last, so an interrupted install is redone on the next run.
echo "$want" >"$stamp"
echo "notebook venv: installed in $((SECONDS - start))s ($(du -sh "$venv" | cut -f1))"
