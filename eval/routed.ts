/**
 * Issue localisation through the whole answer path (route → lookups → two hops → fuse → context):
 * file-level Acc@1 and Recall@5 per language and kind, for proportional fusion, RRF, BM25-only and
 * dense-only, in one run over the same index; plus the slot distributions per kind.
 *
 *   node --import tsx eval/routed.ts [instance]
 */
import { ask } from '../pipeline/answer/ask.ts';
import { ExtractiveGenerator } from '../pipeline/answer/generators/extractive.ts';
import { COLLECTIONS, type Collection } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { openEvalInstance } from './open.ts';

const { config, paths, embedder, store, localization: records, close } = await openEvalInstance();
const deps = { config, store, embedder, generator: new ExtractiveGenerator(), checkout: paths.checkout };

const alpha = config.retrieval.hybrid.alpha;
const variants = {
  proportional: { fusion: { method: 'proportional' as const }, alpha },
  rrf: { fusion: { method: 'rrf' as const }, alpha },
  'bm25-only': { fusion: { method: 'proportional' as const }, alpha: 0 },
  'dense-only': { fusion: { method: 'proportional' as const }, alpha: 1 },
};
type Variant = keyof typeof variants;

interface Row {
  id: string;
  lang: string;
  kind: string;
  variant: Variant;
  acc1: number;
  recall5: number;
  routedToIssue: boolean;
  issueInContext: boolean;
  slots: Record<Collection, number>;
}
const rows: Row[] = [];
const started = Date.now();
for (const r of records) {
  for (const [variant, o] of Object.entries(variants) as [Variant, (typeof variants)[Variant]][]) {
    const result = await ask(deps, r.question, { ...o, retrieveOnly: true });
    const files = distinct(result.context.blocks.filter((b) => b.chunk.collection !== 'issues').map((b) => b.citation.path));
    rows.push({
      id: r.id,
      lang: r.lang,
      kind: r.kind,
      variant,
      acc1: accuracyAt1(files, r.gold_files_at_tag),
      recall5: recallAtK(files, r.gold_files_at_tag, 5),
      routedToIssue: result.route.top === 'issues' && result.route.lookups.issues.includes(r.issue),
      issueInContext: result.context.blocks.some((b) => b.citation.issue === r.issue),
      slots: Object.fromEntries(COLLECTIONS.map((c) => [c, result.fusion.slots[c] ?? 0])) as Record<Collection, number>,
    });
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pick = (f: (r: Row) => boolean) => rows.filter(f);
console.log(`issue localisation through ask(), ${records.length} questions, model ${embedder.id} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
console.log(`${'variant'.padEnd(13)} ${'kind'.padEnd(11)} ${'Acc@1 en'.padStart(9)} ${'Acc@1 es'.padStart(9)} ${'R@5 en'.padStart(8)} ${'R@5 es'.padStart(8)}`);
for (const variant of Object.keys(variants) as Variant[]) {
  for (const kind of ['issue-text', 'issue-ref', 'all']) {
    const sel = (lang: string) => pick((r) => r.variant === variant && r.lang === lang && (kind === 'all' || r.kind === kind));
    const f = (xs: number[]) => (100 * mean(xs)).toFixed(1);
    console.log(
      `${variant.padEnd(13)} ${kind.padEnd(11)} ${f(sel('en').map((r) => r.acc1)).padStart(9)} ${f(sel('es').map((r) => r.acc1)).padStart(9)} ${f(sel('en').map((r) => r.recall5)).padStart(8)} ${f(sel('es').map((r) => r.recall5)).padStart(8)}`,
    );
  }
}
const refs = pick((r) => r.kind === 'issue-ref' && r.variant === 'proportional');
console.log(`\nissue-ref questions routed to their issue: ${refs.filter((r) => r.routedToIssue).length}/${refs.length}; issue in context: ${refs.filter((r) => r.issueInContext).length}/${refs.length}`);
console.log('\nmean slots per question (docs / code / issues), and share of questions whose slots are an even quota:');
for (const variant of ['proportional', 'rrf'] as Variant[]) {
  for (const kind of ['issue-text', 'issue-ref']) {
    const sel = pick((r) => r.variant === variant && r.kind === kind);
    const m = (c: Collection) => mean(sel.map((r) => r.slots[c])).toFixed(2);
    const even = sel.filter((r) => {
      const used = COLLECTIONS.map((c) => r.slots[c]).filter((n) => n > 0);
      return used.length > 1 && used.every((n) => n === used[0]);
    }).length;
    const zeroDocs = sel.filter((r) => r.slots.docs === 0).length;
    console.log(`  ${variant.padEnd(13)} ${kind.padEnd(11)} ${m('docs')} / ${m('code')} / ${m('issues')}   even quota ${even}/${sel.length}; docs given 0 slots ${zeroDocs}/${sel.length}`);
  }
}
await close();
process.exit(0);
