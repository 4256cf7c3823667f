#!/usr/bin/env bash
# Re-scores the TREC export of an evaluation report (`cita eval ... --trec`) with trec_eval
# (pytrec_eval-terrier) and prints its figures beside the harness's own; exit 1 if any differs.
#   bash eval/trec/rescore.sh reports/<name>.json [--trec <dir>] [--json]
# The scorer lives in a venv, .cita/venv-trec, made here on first use (pip; a stamp holds the sha256
# of eval/trec/requirements.txt, and a venv whose stamp matches is reused as it is).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.cita/venv-trec"
reqs="$root/eval/trec/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(sha256sum "$reqs" | cut -d' ' -f1)"
if ! [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  # A venv left broken (no interpreter or no pip) is made anew.
  if [[ -d "$venv" ]] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then rm -rf "$venv"; fi
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "trec venv: creating .cita/venv-trec with $("$python" --version 2>&1)" >&2
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
  fi
  rm -f "$stamp"
  echo "trec venv: pip install -r eval/trec/requirements.txt" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$reqs" >&2
  # Written last, so an interrupted install is redone on the next run.
  echo "$want" >"$stamp"
fi
exec "$venv/bin/python" "$root/eval/trec/rescore.py" "$@"
