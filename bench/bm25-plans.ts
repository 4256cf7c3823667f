/**
 * Why the SQLite store's BM25 is slow on a large collection (#14 item 4), query by query, every plan
 * against the store's plan before #14 item 4 (FTS5's `bm25()` over the OR of the question's terms,
 * top n, run again with n doubled while the n-th tied the k-th) in the same run: the store's
 * `bm25()` now (one FTS5 run, every row tied at the k-th kept), FTS5 matching the same OR without
 * ranking (`count(*)`: the least any plan that evaluates the OR costs, "FTS5's own speed"), and an
 * exact phrase-by-phrase MaxScore (bench/support/bm25MaxScore.ts). Hits and scores of the store and
 * of MaxScore are checked equal to the old plan's on every query. `--max-terms 16,32`: the store's
 * `bm25()` with `retrieval.bm25.maxTerms` N as well (its rarest N terms only: other rankings, so
 * their top-k overlap with the old plan's is shown instead). `--df-cutoff 0.01,0.05`: FTS5's `bm25()`
 * over the OR of only the question's terms found in at most that share of the rows (all of them
 * when none is that rare): the candidate side of Lucene's common-terms query, whose common terms
 * would then only score the rows the rare ones match (not done here: a lower bound of its cost, and
 * its top-k overlap). `--common 0.01,0.05`: that query itself, the store's `bm25()` with
 * `retrieval.bm25.commonCutoff` (pipeline/store/sqlite/ftsCommonTerms.ts: the rare phrases' rows,
 * each scored with every phrase; rows matching only common phrases left out). `--plans`: which of before, store,
 * match, maxscore to run (default all). Figures by number of terms: wall p50/p95 per query, and
 * the plan's total wall and CPU time (process.cpuUsage: all of it is this thread's SQLite work).
 *
 *   node --import tsx bench/bm25-plans.ts [chunks=200000] [--file <index.sqlite>] [--max-terms 16,32] [--df-cutoff 0.01,0.05] [--common 0.01,0.05] [--plans before,fts5,store,unkept] [--postings-mb 64] [--again]
 *
 * Data as bench/store-compare.ts: the pytest chunks (`cita index pytest` first) cycled to `chunks`
 * in the `code` collection (vectors are not used here). `--file`: the index to use, built there first if
 * missing (kept). `--postings-mb`: the store's memory budget for kept postings (default BM25_POSTINGS_BYTES);
 * `--again`: the store's plan timed over every question once more after the run (phrases seen before).
 * Queries: the 144 questions of ../shared/datasets/pytest, k = 10, 20 warm-up queries first, each
 * plan once per query, in turn. Prints figures, asserts nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { codeQaRecord, loadJsonl, localizationRecord } from '../datasets/shared.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { ftsMatch, ftsQuery, ftsTerms } from '../pipeline/text/codeTokens.ts';
import { BM25_WEIGHTS, SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { topK } from '../pipeline/store/topK.ts';
import { FtsBm25 } from './support/bm25MaxScore.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { file: { type: 'string' }, 'postings-mb': { type: 'string' }, again: { type: 'boolean' }, 'max-terms': { type: 'string' }, 'df-cutoff': { type: 'string' }, common: { type: 'string' }, plans: { type: 'string' } },
});
const maxTerms = (values['max-terms'] ?? '').split(',').filter((x) => x !== '').map(Number);
const cutoffs = (values['df-cutoff'] ?? '').split(',').filter((x) => x !== '').map(Number);
const commons = (values.common ?? '').split(',').filter((x) => x !== '').map(Number);
const chosen = new Set((values.plans ?? 'before,fts5,store,unkept,match,maxscore').split(','));
const size = Number(positionals[0] ?? 200_000);
const K = 10;
const WARMUP = 20;
const root = findRoot();

async function build(file: string): Promise<void> {
  const source = await openInstance('pytest', { purpose: 'read', root });
  const base = await source.store.get(await source.store.ids());
  await source.close();
  const store = SqliteStore.open(file, { dims: 384 });
  // BM25 ignores vectors; a constant one keeps the load fast.
  const vector = new Float32Array(384).fill(1 / Math.sqrt(384));
  for (let i = 0; i < size; i += 20_000) {
    const batch = [];
    for (let j = i; j < Math.min(size, i + 20_000); j++) {
      const b = base[j % base.length]!;
      batch.push({ ...b, collection: 'code' as const, id: `s${j}`, citation: { ...b.citation, path: `${b.citation.path}#${Math.floor(j / base.length)}` }, vector });
    }
    await store.upsert(batch);
  }
  await store.close();
}

const dir = values.file ? undefined : mkdtempSync(path.join(tmpdir(), 'cita-bm25-plans-'));
const file = values.file ?? path.join(dir!, 'index.sqlite');
try {
  if (!existsSync(file)) await build(file);
  const postingsMb = values['postings-mb'];
  const store = SqliteStore.open(file, { dims: 384, ...(postingsMb ? { bm25PostingsBytes: Number(postingsMb) * 2 ** 20 } : {}) });
  const unkept = SqliteStore.open(file, { dims: 384, bm25PostingsBytes: 0 });
  const pruned = maxTerms.map((n) => [n, SqliteStore.open(file, { dims: 384, bm25MaxTerms: n })] as const);
  const common = commons.map((c) => [c, SqliteStore.open(file, { dims: 384, bm25CommonCutoff: c })] as const);
  const db = new Database(file, { readonly: true });
  const count = db.prepare(`SELECT count(*) FROM fts_code WHERE fts_code MATCH ?`).pluck();
  const before = db.prepare(
    `SELECT rowid AS seq, -bm25(fts_code, ${BM25_WEIGHTS.join(', ')}) AS score FROM fts_code WHERE fts_code MATCH :match ORDER BY score DESC, rowid LIMIT :n`,
  );
  const idOfSeq = db.prepare(`SELECT id FROM chunks WHERE seq = ?`).pluck();
  // The store's plan before its postings were kept (2026-12-03): one FTS5 `bm25()` run over the OR, top n + 1, and
  // when the (n + 1)-th tied the n-th, a second run keeping every score at least the n-th's.
  const fts5Top = db.prepare(
    `SELECT rowid AS seq, -bm25(fts_code, ${BM25_WEIGHTS.join(', ')}) AS score FROM fts_code WHERE fts_code MATCH :match ORDER BY score DESC, rowid LIMIT :n`,
  );
  const fts5Ties = db.prepare(
    `WITH scored AS MATERIALIZED (SELECT rowid AS seq, -bm25(fts_code, ${BM25_WEIGHTS.join(', ')}) AS score FROM fts_code WHERE fts_code MATCH :match),
     kth AS (SELECT score FROM scored ORDER BY score DESC LIMIT 1 OFFSET :k - 1)
     SELECT c.id, scored.score FROM scored JOIN chunks c ON c.seq = scored.seq
     WHERE NOT EXISTS (SELECT 1 FROM kth) OR scored.score >= (SELECT score FROM kth) ORDER BY scored.score DESC, c.id LIMIT :k`,
  ).raw();
  const oneRun = (match: string) => {
    const top = fts5Top.all({ match, n: K + 1 }) as { seq: number; score: number }[];
    if (top.length > K && top[K]!.score >= top[K - 1]!.score) return fts5Ties.all({ match, k: K });
    return top.slice(0, K).map((r) => [idOfSeq.get(r.seq) as string, r.score]).sort((a, b) => (b[1] as number) - (a[1] as number) || ((a[0] as string) < (b[0] as string) ? -1 : 1));
  };
  const idOf = db.prepare(`SELECT seq, id FROM chunks WHERE seq IN (SELECT value FROM json_each(?))`).raw();
  const maxScore = new FtsBm25({
    db,
    table: 'fts_code',
    weights: BM25_WEIGHTS,
    ids: (rowids) => new Map(idOf.all(JSON.stringify(rowids)) as [number, string][]),
    generation: () => 0,
  });
  const data = path.resolve(root, '../shared/datasets/pytest');
  const questions = [
    ...loadJsonl(path.join(data, 'issue-localization.jsonl'), localizationRecord),
    ...loadJsonl(path.join(data, 'code-qa.jsonl'), codeQaRecord),
  ].map((r) => r.question);
  const chunks = await store.count('code');

  /** The old plan's top K for a MATCH expression: FTS5's `bm25()`, run again with n doubled while the n-th ties the k-th. */
  const topOf = async (match: string) =>
    (
      await topK(
        (n) => (before.all({ match, n }) as { seq: number; score: number }[]).map((r) => ({ chunk: { id: idOfSeq.get(r.seq) as string }, score: r.score }) as never),
        K,
        Number.MAX_SAFE_INTEGER,
      )
    ).hits.map((h) => [h.chunk.id, h.score]);
  const allPlans: Record<string, (q: string) => unknown> = {
    before: (q: string) => topOf(ftsQuery(q)),
    'one FTS5 run': (q: string) => {
      const match = ftsQuery(q);
      return match === '' ? [] : oneRun(match);
    },
    'store bm25()': async (q: string) => (await store.bm25('code', q, K)).map((h) => [h.chunk.id, h.score]),
    'nothing kept': async (q: string) => (await unkept.bm25('code', q, K)).map((h) => [h.chunk.id, h.score]),
    'FTS5 match only': (q: string) => count.get(ftsQuery(q)),
    'MaxScore (exact)': (q: string) => db.transaction(() => maxScore.search(ftsTerms(q), K).map((h) => [h.id, h.score]))(),
  };
  const keys: Record<string, string> = { before: 'before', fts5: 'one FTS5 run', store: 'store bm25()', unkept: 'nothing kept', match: 'FTS5 match only', maxscore: 'MaxScore (exact)' };
  const plans: Record<string, (q: string) => unknown> = Object.fromEntries(Object.entries(keys).flatMap(([key, name]) => (chosen.has(key) ? [[name, allPlans[name]!]] : [])));
  for (const [n, s] of pruned) plans[`maxTerms ${n}`] = async (q: string) => (await s.bm25('code', q, K)).map((h) => [h.chunk.id, h.score]);
  for (const [c, s] of common) plans[`common ≤ ${c}`] = async (q: string) => (await s.bm25('code', q, K)).map((h) => [h.chunk.id, h.score]);
  if (cutoffs.length > 0) {
    db.exec(`CREATE VIRTUAL TABLE temp.bench_vocab USING fts5vocab(main, 'fts_code', 'row')`);
    const dfOf = db.prepare(`SELECT doc FROM temp.bench_vocab WHERE term = ?`).pluck();
    // A dotted term is a phrase: as rare as its rarest token (as the store's docFreq takes it).
    const df = (term: string) => Math.min(...term.split(/[^\p{L}\p{N}_]+/u).filter(Boolean).map((t) => (dfOf.get(t) as number | undefined) ?? 0));
    for (const c of cutoffs) {
      plans[`rare ≤ ${c}`] = (q: string) => {
        const terms = ftsTerms(q);
        const rare = terms.filter((t) => df(t) <= c * chunks);
        const match = ftsMatch(rare.length > 0 ? rare : terms);
        return match === '' ? [] : topOf(match);
      };
    }
  }
  for (const q of questions.slice(0, WARMUP)) for (const plan of Object.values(plans)) await plan(q);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(plans).map((p) => [p, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(plans).map((p) => [p, []]));
  const overlap: Record<string, number> = Object.fromEntries(Object.keys(plans).map((p) => [p, 0]));
  let equalStore = 0;
  let equalMaxScore = 0;
  let equalFts5 = 0;
  let equalUnkept = 0;
  for (const q of questions) {
    const results: Record<string, unknown> = {};
    for (const [name, plan] of Object.entries(plans)) {
      const c = process.cpuUsage();
      const t = performance.now();
      results[name] = await plan(q);
      times[name]!.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu[name]!.push((used.user + used.system) / 1000);
    }
    const reference = JSON.stringify(results.before);
    if (JSON.stringify(results['store bm25()']) === reference) equalStore++;
    if (JSON.stringify(results['MaxScore (exact)']) === reference) equalMaxScore++;
    if (JSON.stringify(results['one FTS5 run']) === reference) equalFts5++;
    if (JSON.stringify(results['nothing kept']) === reference) equalUnkept++;
    const referenceIds = new Set(((results.before ?? results['store bm25()'] ?? []) as [string, number][]).map(([id]) => id));
    for (const name of Object.keys(plans)) {
      const hits = results[name];
      if (Array.isArray(hits)) overlap[name]! += (hits as [string, number][]).filter(([id]) => referenceIds.has(id)).length / Math.max(1, referenceIds.size);
    }
  }

  // `--again`: the store's plan over every question a second time, its phrases seen before (a server's steady state).
  const columns = Object.keys(plans);
  if (values.again) {
    const name = 'store bm25() again';
    columns.push(name);
    times[name] = [];
    cpu[name] = [];
    for (const q of questions) {
      const c = process.cpuUsage();
      const t = performance.now();
      await allPlans['store bm25()']!(q);
      times[name].push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu[name].push((used.user + used.system) / 1000);
    }
  }
  const terms = questions.map((q) => ftsTerms(q).length);
  const buckets: [string, (n: number) => boolean][] = [
    ['all', () => true],
    ['≤16 terms', (n) => n <= 16],
    ['17–64 terms', (n) => n > 16 && n <= 64],
    ['>64 terms', (n) => n > 64],
  ];
  const pct = (t: number[], p: number) => [...t].sort((a, b) => a - b)[Math.min(t.length - 1, Math.floor(p * t.length))]!;
  const sum = (t: number[]) => t.reduce((a, b) => a + b, 0);
  console.log(`bm25 plans: ${chunks} chunks (code), ${questions.length} questions, k=${K}; terms per question: median ${pct(terms, 0.5)}, max ${Math.max(...terms)}`);
  if (chosen.has('before')) {
    const n = questions.length;
    console.log(`hits and scores equal to before: one FTS5 run ${equalFts5}/${n}, store ${equalStore}/${n}, nothing kept ${equalUnkept}/${n}, MaxScore ${equalMaxScore}/${n}`);
  }
  const kept = store.postingsStats('code');
  console.log(`store postings kept: ${kept.phrases} phrases, ${kept.postings} postings (${(kept.bytes / 2 ** 20).toFixed(1)} MiB); lookups ${kept.hits} from memory, ${kept.misses} read`);
  const reference = chosen.has('before') ? 'before' : 'store bm25()';
  const approximate = Object.keys(plans).filter((p) => p.startsWith('maxTerms') || p.startsWith('rare') || p.startsWith('common'));
  if (approximate.length > 0) {
    console.log(`top-${K} overlap with ${reference} (mean share of its ids): ${approximate.map((p) => `${p} ${(overlap[p]! / questions.length).toFixed(3)}`).join(', ')}`);
  }
  const baseline = Object.keys(plans)[0]!;
  for (const [label, keep] of buckets) {
    const idx = terms.flatMap((n, i) => (keep(n) ? [i] : []));
    if (idx.length === 0) continue;
    const base = sum(idx.map((i) => times[baseline]![i]!));
    const cells = columns.map((name) => {
      const t = idx.map((i) => times[name]![i]!);
      const c = sum(idx.map((i) => cpu[name]![i]!));
      return `${name} p50 ${pct(t, 0.5).toFixed(1)} p95 ${pct(t, 0.95).toFixed(1)} ms, wall ${(sum(t) / 1000).toFixed(1)} s cpu ${(c / 1000).toFixed(1)} s (×${(sum(t) / base).toFixed(2)})`;
    });
    console.log(`${label.padEnd(12)} n=${String(idx.length).padStart(3)} | ${cells.join(' | ')}`);
  }
  console.log(`(×: total wall time against ${baseline})`);
  await store.close();
  await unkept.close();
  for (const [, s] of [...pruned, ...common]) await s.close();
  db.close();
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
