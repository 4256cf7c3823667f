"""Re-scores a cita evaluation report's TREC export with trec_eval (pytrec_eval) and compares.

For each run of the report, reads `<name>.<label>.run` and `<name>.<label>.qrels` (written by
`cita eval ... --trec`), scores them with trec_eval's own measures and prints each mean, overall and
per language, beside the harness's aggregate of the same metric. Means are over the qrels' queries,
a query without a ranked file counting 0 (trec_eval -c). Exit 1 when a figure differs by more than
1e-9, 2 on bad input.
"""

import argparse
import json
import os
import sys

import pytrec_eval

# harness metric id -> trec_eval measure (binary relevance, distinct files)
MEASURES = {
    "file.recall@5": "recall_5",
    "file.recall@10": "recall_10",
    "file.acc@1": "P_1",
    "file.mrr": "recip_rank",
    "file.ndcg@10": "ndcg_cut_10",
}
TOLERANCE = 1e-9


def unfield(s):
    """Undoes the exporter's %XX encoding of whitespace and '%'."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "%":
            out.append(chr(int(s[i + 1 : i + 3], 16)))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def read_qrels(path):
    qrels = {}
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        parts = line.split()
        if len(parts) != 4:
            sys.exit(f"{path}:{n}: expected `qid 0 docid rel`, got {line!r}")
        qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return qrels


def read_run(path):
    run = {}
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        parts = line.split()
        if len(parts) != 6:
            sys.exit(f"{path}:{n}: expected `qid Q0 docid rank score tag`, got {line!r}")
        run.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return run


def harness_mean(run_report, metric, lang):
    group = {} if lang is None else {"lang": lang}
    for a in run_report["aggregates"]:
        if a["metric"] == metric and a["group"] == group:
            return a["mean"], a["n"]
    return None, 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="the report JSON written by cita eval")
    parser.add_argument("--trec", help="directory of the TREC files (default: the report's)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    report = json.load(open(args.report, encoding="utf-8"))
    if "runs" not in report:
        print(f"{args.report} is not a cita report (no runs)", file=sys.stderr)
        return 2
    name = os.path.basename(args.report)[: -len(".json")] if args.report.endswith(".json") else os.path.basename(args.report)
    trec_dir = args.trec or os.path.dirname(os.path.abspath(args.report))
    rows = []
    for run_report in report["runs"]:
        base = os.path.join(trec_dir, f"{name}.{run_report['label']}")
        if not (os.path.exists(base + ".run") and os.path.exists(base + ".qrels")):
            print(f"{base}.run / .qrels not found: run cita eval with --trec", file=sys.stderr)
            return 2
        qrels, run = read_qrels(base + ".qrels"), read_run(base + ".run")
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5,10", "P.1", "recip_rank", "ndcg_cut.10"}).evaluate(run)
        lang_of = {q["id"]: q["lang"] for q in run_report["questions"]}
        for lang in (None, "en", "es"):
            qids = [q for q in qrels if lang is None or lang_of.get(unfield(q)) == lang]
            if not qids:
                continue
            for metric, measure in MEASURES.items():
                trec = sum(per_query.get(q, {}).get(measure, 0.0) for q in qids) / len(qids)
                harness, n = harness_mean(run_report, metric, lang)
                rows.append({
                    "run": run_report["label"], "lang": lang or "all", "metric": metric, "measure": measure,
                    "n": len(qids), "harnessN": n, "harness": harness, "trec_eval": trec,
                    "equal": harness is not None and n == len(qids) and abs(harness - trec) <= TOLERANCE,
                })
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'run':<4} {'lang':<4} {'metric':<15} {'trec_eval':<12} {'n':>4} {'harness':>9} {'trec_eval':>9}  same")
        for r in rows:
            h = "—" if r["harness"] is None else f"{r['harness']:.6f}"
            print(f"{r['run']:<4} {r['lang']:<4} {r['metric']:<15} {r['measure']:<12} {r['n']:>4} {h:>9} {r['trec_eval']:>9.6f}  {'yes' if r['equal'] else 'NO'}")
    return 0 if rows and all(r["equal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
