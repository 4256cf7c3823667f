#!/usr/bin/env bash
# A few searches over the pytest instance, in English and Spanish, after `cita index pytest`.
set -euo pipefail
cd "$(dirname "$0")/.."
cita() { node bin/cita.mjs "$@"; }
run() { echo; echo "\$ cita search pytest \"$1\" ${*:2}"; cita search pytest "$1" "${@:2}"; }
run "How do I skip a test on Windows?" --source docs --k 3
run "¿Cómo omito un test en Windows?" --source docs --k 3
run "where are skip and xfail marks evaluated" --source code --k 3
run "¿Dónde se evalúan las marcas skip y xfail?" --source code --k 3
run "parse_config" --source code --k 3
