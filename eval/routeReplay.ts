/**
 * How much the weights per collection cost or gain: each question is retrieved once (eval/replay.ts),
 * then its candidates are placed again under several routing schemes, and file Acc@1 / Recall@5 are
 * reported per dataset × split × language for each. A research tool for choosing a scheme on the dev
 * half and reading it on the held-out half; its figures are not an A/B (run `cita eval --vs` for that).
 *
 *   node --import tsx eval/routeReplay.ts [instance] [--dataset name ...] [--fresh] [--json]
 */
import { parseArgs } from 'node:util';
import { placementOf, rankCandidates, RANK_DEPTH } from '../pipeline/answer/ranking.ts';
import { learnedRoute } from '../pipeline/retrieval/learnedRoute.ts';
import { route as routeQuestion } from '../pipeline/retrieval/router.ts';
import { COLLECTIONS, type Collection } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { replayedRoute, replayItems, routedText, type ReplayItem } from './replay.ts';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { dataset: { type: 'string', multiple: true }, fresh: { type: 'boolean' }, json: { type: 'boolean' } },
});
const instance = positionals[0] ?? 'pytest';
const { config, items, retrieved } = await replayItems(instance, { ...(values.dataset ? { datasets: values.dataset } : {}), fresh: values.fresh ?? false });
const placement = placementOf(config);

/** A scheme: the weights placement uses for a question. */
type Scheme = (item: ReplayItem) => Record<Collection, number>;
const rules = (it: ReplayItem) => routeQuestion(routedText(config, it.q.question)).weights;
const power = (g: number) => (it: ReplayItem) => Object.fromEntries(COLLECTIONS.map((c) => [c, rules(it)[c] ** g])) as Record<Collection, number>;
const model = config.retrieval.router.model;
const schemes: Record<string, Scheme> = {
  rules,
  'rules^0.5': power(0.5),
  'equal (fit only)': power(0),
  ...(model
    ? {
        'learned (config)': (it: ReplayItem) => {
          const { route, features } = replayedRoute(config, it);
          return learnedRoute(route, model, features).weights;
        },
      }
    : {}),
  // An upper bound, not a scheme: the gold collection favoured as the strongest rule would.
  oracle: (it) => Object.fromEntries(COLLECTIONS.map((c) => [c, c === it.q.gold.source ? 1 : 1 / 3])) as Record<Collection, number>,
};

type Row = { scheme: string; dataset: string; lang: string; split: string; n: number; acc1: number; r5: number };
const rows: Row[] = [];
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
for (const [name, scheme] of Object.entries(schemes)) {
  const groups = new Map<string, { acc1: number; r5: number }[]>();
  for (const it of items) {
    const files = rankCandidates({ ...it.candidates, weights: scheme(it) }, RANK_DEPTH, placement).files;
    const scored = { acc1: accuracyAt1(files, it.q.gold.files), r5: recallAtK(files, it.q.gold.files, 5) };
    for (const key of [`${it.dataset}|${it.split}|${it.q.lang}`, `all|${it.split}|${it.q.lang}`]) groups.set(key, [...(groups.get(key) ?? []), scored]);
  }
  for (const [key, g] of groups) {
    const [dataset, split, lang] = key.split('|') as [string, string, string];
    rows.push({ scheme: name, dataset, split, lang, n: g.length, acc1: mean(g.map((s) => s.acc1)), r5: mean(g.map((s) => s.r5)) });
  }
}

if (values.json) {
  console.log(JSON.stringify({ instance, rows }, null, 2));
} else {
  const keys = [...new Set(rows.map((r) => `${r.dataset}|${r.split}|${r.lang}`))].sort();
  const pct = (x: number) => (100 * x).toFixed(1).padStart(5);
  console.log(`file Acc@1 / Recall@5 per scheme (${items.length} answerable questions, ${retrieved} retrieved in this run)`);
  console.log(`${'dataset split lang (n)'.padEnd(34)}${Object.keys(schemes).map((s) => s.padStart(18)).join('')}`);
  for (const key of keys) {
    const rs = rows.filter((r) => `${r.dataset}|${r.split}|${r.lang}` === key);
    const cells = Object.keys(schemes).map((s) => {
      const r = rs.find((x) => x.scheme === s)!;
      return `${pct(r.acc1)} / ${pct(r.r5)}`.padStart(18);
    });
    console.log(`${`${key.replaceAll('|', ' ')} (${rs[0]!.n})`.padEnd(34)}${cells.join('')}`);
  }
}
