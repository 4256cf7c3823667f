/**
 * The latency null check (#13 item 6): the same config as A and as B, so any latency difference is
 * the harness's, not the config's. Runs the A/B the old way (all of A, then all of B, one query memo
 * and translator shared by both, no warm-up) and the new way (interleaved per question, alternating
 * who goes first, each with its own caches, warm-up uncounted), and prints for each the B − A median
 * of per-question differences with its bootstrap 95% CI. Mode `seq` (sequential, own caches, warm-up)
 * separates the effect of the order from that of the caches. Prints figures, asserts nothing.
 *
 *   node --import tsx bench/latency-null.ts [instance=pytest] [--dataset pytest-docs] [--split dev] [--limit n] [--modes old,seq,new]
 */
import { parseArgs } from 'node:util';
import { findRoot } from '../pipeline/config/load.ts';
import type { Translator } from '../pipeline/text/translate.ts';
import { evaluate } from '../eval/evaluate.ts';
import type { MemoizedEmbedder } from '../eval/queryMemo.ts';
import { latencySentence } from '../eval/report/drilldown.ts';
import { evaluateQuestion } from '../eval/run.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dataset: { type: 'string', multiple: true, default: ['pytest-docs'] },
    split: { type: 'string', default: 'dev' },
    limit: { type: 'string' },
    modes: { type: 'string', default: 'old,seq,new' },
  },
});
const root = findRoot();
const instance = positionals[0] ?? 'pytest';

async function once(mode: string) {
  // The old way: B is served from A's caches (the first target's memo and translator stand for both).
  let shared: { embedder: MemoizedEmbedder; translator: Translator | undefined } | undefined;
  const old = mode === 'old';
  const started = Date.now();
  const report = await evaluate({
    root,
    instance,
    a: { overlays: [], overrides: [] },
    b: { overlays: [], overrides: [] },
    datasets: values.dataset,
    split: values.split as 'dev' | 'test',
    ...(values.limit ? { limit: Number(values.limit) } : {}),
    order: mode === 'new' ? 'interleaved' : 'sequential',
    warmup: old ? 0 : 3,
    argv: ['bench/latency-null.ts', ...process.argv.slice(2)],
    log: () => {},
    evaluateOne: (t, q, jc, indexed) => {
      if (!old) return evaluateQuestion(t, q, jc, indexed);
      shared ??= { embedder: t.embedder, translator: t.translator };
      return evaluateQuestion({ ...t, embedder: shared.embedder, ...(shared.translator ? { translator: shared.translator } : {}) }, q, jc, indexed);
    },
  });
  const c = report.latencyComparison!;
  const lang = (l: string) => {
    const ids = new Set(report.runs[0]!.questions.filter((q) => q.lang === l).map((q) => q.id));
    const med = (run: number) => {
      const xs = report.runs[run]!.questions.filter((q) => ids.has(q.id) && !q.error).map((q) => q.latency.total! - (q.latency.judge ?? 0)).sort((x, y) => x - y);
      return xs.length ? xs[xs.length >> 1]! : NaN;
    };
    return `${l} A ${med(0).toFixed(0)} ms, B ${med(1).toFixed(0)} ms`;
  };
  process.stdout.write(
    `\n${mode}: ${old ? 'sequential, shared caches, no warm-up' : mode === 'seq' ? 'sequential, own caches, 3 warm-up' : 'interleaved, own caches, 3 warm-up'} (${((Date.now() - started) / 1000).toFixed(0)} s)\n` +
      `  B − A median ${c.medianDiff.toFixed(0)} ms [${c.low.toFixed(0)}, ${c.high.toFixed(0)}], ${(c.relative * 100).toFixed(1)}%, n ${c.n}, ${c.significant ? 'SIGNIFICANT' : 'not significant'}\n` +
      `  medians: A ${c.medianA.toFixed(0)} ms, B ${c.medianB.toFixed(0)} ms; per language (medians): ${lang('en')}; ${lang('es')}\n` +
      `  ${latencySentence(report)}\n`,
  );
}

for (const mode of values.modes.split(',')) await once(mode.trim());
