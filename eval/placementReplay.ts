/**
 * Where `ask` loses what single-collection search finds (#15 "where" questions): each question is
 * retrieved once (eval/replay.ts), then file Acc@1 / Recall@5 are read for each collection's own
 * hybrid ranking, for `ask`'s ranking (the configured learned route; the column names its lookups' place,
 * code-led / docs-led routes) and for `ask` with every route's name lookups after k files
 * (`retrieval.lookupsAfter` and `retrieval.lookupsAfterDocsLed` k) or left out, or with the learned route's
 * `sharpness` set (`--sharpness 1.5,2`), or with the other choice of a docs-led route's first file
 * (`retrieval.docsLedFirst`), of a code-led route's tests and examples (`retrieval.supportCode`) or of where pasted
 * text's docs go (`retrieval.pastedDocsAfter`) — per dataset × language, one split.
 * A research tool for choosing on dev and reading held out; its figures are not an A/B (run
 * `cita eval --set retrieval.lookupsAfter=k` for that).
 *
 *   node --import tsx eval/placementReplay.ts [instance] [--split dev|test] [--dataset name ...] [--sharpness 1.5,2] [--fresh]
 */
import { parseArgs } from 'node:util';
import { placementOf, rankCandidates, RANK_DEPTH } from '../pipeline/answer/ranking.ts';
import { learnedRoute } from '../pipeline/retrieval/learnedRoute.ts';
import type { SearchHit } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { replayedRoute, replayItems, type ReplayItem } from './replay.ts';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { split: { type: 'string', default: 'dev' }, dataset: { type: 'string', multiple: true }, fresh: { type: 'boolean' }, sharpness: { type: 'string' } },
});
const instance = positionals[0] ?? 'pytest';
const { config, items } = await replayItems(instance, { ...(values.dataset ? { datasets: values.dataset } : {}), fresh: values.fresh ?? false });
const placement = placementOf(config);
const model = config.retrieval.router.model;

/** A collection's own ranking: its files in the order its hits first name them. */
const filesOf = (hits: SearchHit[] = []) => [...new Set(hits.map((h) => h.chunk.citation.path).filter((p): p is string => p !== undefined))];

function weightsOf(it: ReplayItem, sharpness?: number) {
  const { route, features } = replayedRoute(config, it);
  if (!model) return route.weights;
  return learnedRoute(route, sharpness === undefined ? model : { ...model, sharpness }, features).weights;
}
/** `--sharpness 1.5,2`: ask with the learned route's sharpness set to each (see RouterModel). */
const sharpnesses = (values.sharpness ?? '').split(',').filter((s) => s.trim() !== '').map(Number);

const variants: Record<string, (it: ReplayItem) => string[]> = {
  'docs search': (it) => filesOf(it.candidates.deep.docs),
  'code search': (it) => filesOf(it.candidates.deep.code),
  [`ask (lookups after ${placement.lookupsAfter}/${placement.lookupsAfterDocsLed ?? placement.lookupsAfter})`]: (it) => rankCandidates({ ...it.candidates, weights: weightsOf(it) }, RANK_DEPTH, placement).files,
  // Every route's lookups after k files (lookupsAfter and lookupsAfterDocsLed both k).
  ...Object.fromEntries(
    [0, 1, 3].map((k) => [`ask, lookups after ${k}`, (it: ReplayItem) => rankCandidates({ ...it.candidates, weights: weightsOf(it) }, RANK_DEPTH, { ...placement, lookupsAfter: k, lookupsAfterDocsLed: k }).files]),
  ),
  // The other choice of a docs-led route's first file (`retrieval.docsLedFirst`).
  [`ask, docs-led first: ${placement.docsLedFirst === 'docs' ? 'fused' : 'docs'}`]: (it) =>
    rankCandidates({ ...it.candidates, weights: weightsOf(it) }, RANK_DEPTH, { ...placement, docsLedFirst: placement.docsLedFirst === 'docs' ? 'fused' : 'docs' }).files,
  // The other choice of a code-led route's tests and examples (`retrieval.supportCode`).
  [`ask, support code ${placement.supportCode === 'after-library' ? 'as-found' : 'after-library'}`]: (it) =>
    rankCandidates({ ...it.candidates, weights: weightsOf(it) }, RANK_DEPTH, { ...placement, supportCode: placement.supportCode === 'after-library' ? 'as-found' : 'after-library' }).files,
  // Pasted text's docs after its first k code files where the route leans to the code (`retrieval.pastedDocsAfter`).
  ...Object.fromEntries(
    [0, 3, 5].filter((k) => k !== (placement.pastedDocsAfter ?? 0)).map((k) => [`ask, pasted: docs after ${k}`, (it: ReplayItem) => rankCandidates({ ...it.candidates, weights: weightsOf(it) }, RANK_DEPTH, { ...placement, pastedDocsAfter: k }).files]),
  ),
  'ask, no name lookups': (it) => rankCandidates({ ...it.candidates, weights: weightsOf(it), named: [] }, RANK_DEPTH, placement).files,
  ...Object.fromEntries(sharpnesses.map((g) => [`ask, sharpness ${g}`, (it: ReplayItem) => rankCandidates({ ...it.candidates, weights: weightsOf(it, g) }, RANK_DEPTH, placement).files])),
};

const groups = new Map<string, ReplayItem[]>();
for (const it of items.filter((i) => i.split === values.split)) {
  for (const key of [`${it.dataset} ${it.q.lang}`, `all ${it.q.lang}`]) groups.set(key, [...(groups.get(key) ?? []), it]);
}
const pct = (x: number) => (100 * x).toFixed(1).padStart(5);
console.log(`file Acc@1 / Recall@5, ${instance}, split ${values.split} (replayed retrievals)`);
console.log(`${'dataset lang (n)'.padEnd(30)}${Object.keys(variants).map((v) => v.padStart(24)).join('')}`);
for (const [key, its] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
  const cells = Object.values(variants).map((files) => {
    const scored = its.map((it) => {
      const f = files(it);
      return [accuracyAt1(f, it.q.gold.files), recallAtK(f, it.q.gold.files, 5)] as const;
    });
    const mean = (i: 0 | 1) => scored.reduce((s, x) => s + x[i], 0) / scored.length;
    return `${pct(mean(0))} / ${pct(mean(1))}`.padStart(24);
  });
  console.log(`${`${key} (${its.length})`.padEnd(30)}${cells.join('')}`);
}
