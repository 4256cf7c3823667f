/**
 * Cross-lingual pseudo-relevance feedback for docs retrieval (#15 item 2). A Spanish question is
 * translated with Apertium for BM25 and searched as asked by the dense side (crossLingual.ts); the
 * translation misses words the docs use. Feedback: the first pass's top `m` chunks (by dense score,
 * or by the fused hybrid score) give English terms that characterise them, RM-style — a term's
 * weight is the sum over those chunks of its relative frequency there times its IDF in the
 * collection (Okapi's, as FTS5's bm25 computes it) — stopwords, one- and two-letter tokens, numbers
 * and terms already in BM25's query left out. The top `t` terms are
 * - `+` appended to BM25's query (one FTS5 OR query, as the store runs it), then fused with the
 *   dense side as today (min–max convex, hybrid.ts), or
 * - `2nd` searched by a second BM25 run of their own, a third signal: dense keeps alpha, BM25's
 *   share is split half and half between the question's BM25 and the feedback terms' BM25.
 * Every variant is applied to every question, so the English rows say whether it may be applied
 * to all questions or only to those in another language than the corpus (where English keeps
 * today's hybrid). File Recall@k, Recall@10, Acc@1 per language, paired sign-flip p against the
 * hybrid (raw, not corrected). Answerable questions only.
 *
 *   node --import tsx eval/prfRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev]
 *     [--k 5] [--only <variant>] [--show <n>] [--json]
 *
 * `--only`: report only `hybrid` and this variant (the held-out run of the variant chosen on dev).
 * `--show n`: print the feedback terms of the first n questions (to read, not to tune on).
 * Document frequencies are counted here over the collection's chunks, tokenised as FTS5's unicode61
 * tokenizer does (accents folded, `_` kept inside tokens, any column): what the store's fts5vocab
 * table holds.
 */
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { questionAlpha } from '../pipeline/retrieval/crossLingual.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import { minMax } from '../pipeline/retrieval/hybrid.ts';
import { contentTerms, foldAccents } from '../pipeline/text/analysis.ts';
import { ftsTerms } from '../pipeline/text/codeTokens.ts';
import { searchFields } from '../pipeline/store/shared.ts';
import { meanVector } from '../pipeline/vectors.ts';
import type { Chunk, ScoredChunk, SearchHit } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { pairedPermutationTest } from './stats/paired.ts';
import { answerableQuestions, experimentArgs, questionPlan } from './docsQuestions.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '5' },
  only: { type: 'string' },
  show: { type: 'string', default: '0' },
  json: { type: 'boolean' },
});
const k = Number(values.k);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const corpus = config.languages.corpus;
const depth = config.retrieval.hybrid.candidates;

// ---- The collection's statistics (what fts5vocab gives the store) ---------------------------------

/** FTS5 unicode61 tokens (remove_diacritics 2, tokenchars '_'), lower-cased, with repetitions. */
function tokens(text: string): string[] {
  return foldAccents(text.normalize('NFC').toLowerCase()).match(/[\p{L}\p{N}_]+/gu) ?? [];
}

const chunks: Chunk[] = await store.get(await store.ids('docs'));
const docFreq = new Map<string, number>();
const termCounts = new Map<string, { tf: Map<string, number>; length: number }>();
for (const c of chunks) {
  const f = searchFields(c.title, c.text);
  const all = [...tokens(f.title), ...tokens(f.text), ...tokens(f.identifiers)];
  for (const t of new Set(all)) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
  // The feedback terms come from the chunk's words (title and text), not the identifier parts' copies.
  const words = [...tokens(f.title), ...tokens(f.text)];
  const tf = new Map<string, number>();
  for (const t of words) tf.set(t, (tf.get(t) ?? 0) + 1);
  termCounts.set(c.id, { tf, length: words.length });
}
const N = chunks.length;

// ---- Term selection (pure: the part a product would port) --------------------------------------

/**
 * Whether a token may be a feedback term: 3+ characters, a letter in it, not a stopword; `words`:
 * letters only (no `_black_` Markdown emphasis, `some_long_rule1` or `test_answer` from examples).
 */
function candidate(term: string, words: boolean): boolean {
  return term.length >= 3 && (words ? /^\p{L}+$/u.test(term) : /\p{L}/u.test(term)) && contentTerms(term, 'en').size > 0;
}

/**
 * The `t` best feedback terms of the chunks given: weight = Σ_d p(d) × tf(w,d)/|d| × idf(w), idf
 * Okapi's ln(1 + (N − df + 0.5)/(df + 0.5)), p(d) the chunk's weight (1, or its first-pass score
 * min–max normalised: RM1's P(d|q)); terms of the query left out; ties by term.
 */
function feedbackTerms(feedback: { tf: Map<string, number>; length: number; p: number }[], exclude: ReadonlySet<string>, t: number, words: boolean): string[] {
  const weight = new Map<string, number>();
  for (const d of feedback) {
    for (const [term, n] of d.tf) {
      if (exclude.has(term) || !candidate(term, words)) continue;
      const df = docFreq.get(term) ?? 0;
      if (df === 0) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      weight.set(term, (weight.get(term) ?? 0) + d.p * (n / Math.max(1, d.length)) * idf);
    }
  }
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, t)
    .map(([term]) => term);
}

// ---- Fusions ------------------------------------------------------------------------------------

type Ranked = { id: string; path: string }[];
const ranked = (hits: { chunk: Chunk }[]): Ranked => hits.map((h) => ({ id: h.chunk.id, path: h.chunk.citation.path }));

/** hybrid.ts's min–max convex fusion with a third signal: dense keeps alpha, BM25's share split (1 − w, w). */
function convex3(hybrid: SearchHit[], extra: ScoredChunk[], alpha: number, w: number): Ranked {
  const e = new Map<string, { path: string; dense: number; bm25: number; extra: number }>();
  for (const h of hybrid) e.set(h.chunk.id, { path: h.chunk.citation.path, dense: h.denseNorm, bm25: h.bm25Norm, extra: 0 });
  minMax(extra.map((g) => g.score)).forEach((n, i) => {
    const g = extra[i]!;
    const x = e.get(g.chunk.id) ?? { path: g.chunk.citation.path, dense: 0, bm25: 0, extra: 0 };
    x.extra = n;
    e.set(g.chunk.id, x);
  });
  const s = (x: { dense: number; bm25: number; extra: number }) => alpha * x.dense + (1 - alpha) * ((1 - w) * x.bm25 + w * x.extra);
  return [...e.entries()].sort((a, b) => s(b[1]) - s(a[1]) || a[0].localeCompare(b[0])).map(([id, x]) => ({ id, path: x.path }));
}

// ---- Variants -----------------------------------------------------------------------------------

interface Variant {
  name: string;
  /** `gold`: a diagnostic oracle, not a method: the gold files' chunks nearest the question (is a loss the feedback's drift, or the mechanics'?). */
  from: 'dense' | 'hybrid' | 'gold';
  m: number;
  t: number;
  how: 'append' | 'second';
  /** RM3 as Anserini runs it: letters-only terms, chunks weighted by their first-pass score. */
  rm3?: boolean;
}
const ALL: Variant[] = [
  ...(['dense', 'hybrid'] as const).flatMap((from) =>
    [5, 10, 20].map((t): Variant => ({ name: `+${from} m5 t${t}`, from, m: 5, t, how: 'append' })),
  ),
  { name: '+dense m3 t10', from: 'dense', m: 3, t: 10, how: 'append' },
  { name: '+hybrid m3 t10', from: 'hybrid', m: 3, t: 10, how: 'append' },
  { name: '2nd dense m5 t10', from: 'dense', m: 5, t: 10, how: 'second' },
  { name: '2nd hybrid m5 t10', from: 'hybrid', m: 5, t: 10, how: 'second' },
  // Anserini's RM3 defaults (fbDocs 10, fbTerms 10, originalQueryWeight 0.5), and m 5.
  ...(['dense', 'hybrid'] as const).flatMap((from) =>
    [5, 10].map((m): Variant => ({ name: `rm3 ${from} m${m} t10`, from, m, t: 10, how: 'second', rm3: true })),
  ),
  { name: 'oracle: gold m5 t10', from: 'gold', m: 5, t: 10, how: 'second', rm3: true },
];
const VARIANTS = ALL.filter((v) => !values.only || v.name === values.only);
if (values.only && VARIANTS.length === 0) throw new Error(`--only ${values.only}: no such variant`);

// ---- Evaluation ---------------------------------------------------------------------------------

type Row = { id: string; pair: string; lang: string; mode: string; recall: number; recall10: number; acc1: number; ms: number };
const rows: Row[] = [];
/** Headroom: questions whose gold file the hybrid misses at k, and of them those with a gold chunk among the dense top 5 (what dense feedback could bring). */
const misses: { lang: string; inDense5: boolean }[] = [];
const shown: string[] = [];
const started = Date.now();
for (const q of questions) {
  const crossLingual = q.lang !== corpus;
  const { plan } = await questionPlan(config, q, store);
  const alpha = questionAlpha(config.retrieval, crossLingual);
  const vector = meanVector(await embedder.embedQueries(plan.dense));
  const hybrid = await hybridCandidates(store, vector, 'docs', plan.bm25, depth, alpha);
  const score = (mode: string, list: Ranked, ms: number) => {
    const files = distinct(list.map((h) => h.path));
    rows.push({ id: q.id, pair: q.pair ?? q.id, lang: q.lang, mode, recall: recallAtK(files, q.gold.files, k), recall10: recallAtK(files, q.gold.files, 10), acc1: accuracyAt1(files, q.gold.files), ms });
  };
  score('hybrid', ranked(hybrid), 0);
  const byDense = hybrid.filter((h) => h.dense !== null).sort((a, b) => b.dense! - a.dense! || a.chunk.id.localeCompare(b.chunk.id));
  if (recallAtK(distinct(hybrid.map((h) => h.chunk.citation.path)), q.gold.files, k) < 1) {
    misses.push({ lang: q.lang, inDense5: byDense.slice(0, 5).some((h) => q.gold.files.includes(h.chunk.citation.path)) });
  }
  const exclude = new Set(ftsTerms(plan.bm25).map((t) => foldAccents(t)));
  for (const v of VARIANTS) {
    const t0 = performance.now();
    const top =
      v.from === 'gold'
        ? (await store.knn('docs', vector, N)).filter((h) => q.gold.files.includes(h.chunk.citation.path)).slice(0, v.m).map((h) => ({ chunk: h.chunk, dense: h.score, score: h.score }))
        : (v.from === 'dense' ? byDense : hybrid).slice(0, v.m);
    // RM1's P(d|q): the first pass's score over the m, min–max (the m-th gets 0, so floor it at 0.1).
    const p = v.rm3 ? minMax(top.map((h) => (v.from === 'hybrid' ? h.score : h.dense!))).map((x) => 0.1 + 0.9 * x) : top.map(() => 1);
    const terms = feedbackTerms(top.map((h, i) => ({ ...termCounts.get(h.chunk.id)!, p: p[i]! })), exclude, v.t, v.rm3 === true);
    let list: Ranked;
    if (v.how === 'append') list = ranked(await hybridCandidates(store, vector, 'docs', `${plan.bm25}\n${terms.join(' ')}`, depth, alpha));
    else list = convex3(hybrid, await store.bm25('docs', terms.join(' '), depth), alpha, 0.5);
    score(v.name, list, performance.now() - t0);
    if (shown.length < Number(values.show) * VARIANTS.length) shown.push(`${q.id} ${v.name}: ${terms.join(' ')}  [bm25: ${plan.bm25.replace(/\n/g, ' | ')}]`);
  }
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
if (values.json) {
  console.log(JSON.stringify({ instance, k, model: embedder.id, rows }, null, 2));
} else {
  const langs = [...new Set(rows.map((r) => r.lang))].sort();
  const counts = langs.map((l) => `${rows.filter((r) => r.lang === l && r.mode === 'hybrid').length} ${l}`).join(', ');
  console.log(`docs collection of ${instance} (${N} chunks), ${counts} questions${values.split ? ` (${values.split})` : ''}, model ${embedder.id}, candidates ${depth}`);
  for (const s of shown) console.log(`  ${s}`);
  const head = langs.map((l) => `R@${k} ${l}`.padStart(8) + `R@10 ${l}`.padStart(9) + `Acc1 ${l}`.padStart(9)).join(' ');
  console.log(`${'mode'.padEnd(18)} ${head}  ${langs.map((l) => `Δ vs hybrid ${l}: R@${k} (p)  Acc1 (p)`.padStart(38)).join(' ')}  ms/q`);
  for (const mode of [...new Set(rows.map((r) => r.mode))]) {
    const cells = langs.map((l) => {
      const rs = rows.filter((r) => r.mode === mode && r.lang === l);
      return `${(100 * mean(rs.map((r) => r.recall))).toFixed(1).padStart(8)}${(100 * mean(rs.map((r) => r.recall10))).toFixed(1).padStart(9)}${(100 * mean(rs.map((r) => r.acc1))).toFixed(1).padStart(9)}`;
    });
    // Paired sign-flip test against the hybrid on the same questions (raw p, not corrected).
    const tests = langs.map((l) => {
      if (mode === 'hybrid') return ''.padStart(38);
      const a = rows.filter((r) => r.mode === 'hybrid' && r.lang === l);
      const b = rows.filter((r) => r.mode === mode && r.lang === l);
      const cell = (f: (r: Row) => number) => {
        const test = pairedPermutationTest(a.map(f), b.map(f));
        return `${(100 * test.meanDiff >= 0 ? '+' : '') + (100 * test.meanDiff).toFixed(1)} (${test.p.toFixed(2)})`;
      };
      return `${cell((r) => r.recall).padStart(19)} ${cell((r) => r.acc1).padStart(18)}`;
    });
    const ms = mode === 'hybrid' ? '' : mean(rows.filter((r) => r.mode === mode).map((r) => r.ms)).toFixed(1);
    console.log(`${mode.padEnd(18)} ${cells.join(' ')}  ${tests.join(' ')}  ${ms}`);
  }
  for (const l of langs) {
    const ms = misses.filter((x) => x.lang === l);
    console.log(`headroom ${l}: the hybrid misses a gold file at ${k} for ${ms.length} questions; a gold chunk is among the dense top 5 for ${ms.filter((x) => x.inDense5).length} of them`);
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s; ms/q: the feedback's own cost, term selection + its BM25 search + fusion)`);
}
await close();
process.exit(0);
