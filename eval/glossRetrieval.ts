/**
 * Document-side translation for cross-lingual docs retrieval (#15 item 2): every docs chunk is
 * glossed into the question's language with Apertium (eng-spa; code held out as for questions,
 * translate.ts), the glosses get a BM25 index of their own (Snowball analysis of that language,
 * analysis.ts), and a question is searched there AS ASKED. Compares, per language, file Recall@k and
 * Acc@1 of the docs collection for today's hybrid (as eval/docsRetrieval.ts computes it) and:
 * - lexical signals: `gloss bm25` (Okapi BM25 in memory over the glosses' Snowball terms),
 *   `fts gloss` (stemmed) (a second FTS5 table shaped like the store's: the product's shape),
 *   `bilingual bm25` (one field, English text + gloss, searched with question + translation; `biling
 *   bm25 asked`: with the question as asked, for the English jargon a Spanish question keeps), and the
 *   control `bm25* translated` (the in-memory engine over the English text with the translation: is
 *   a gain the gloss's, or the engine's?);
 * - fusions with the hybrid: `rrf(…)` (k0 60, equal weights) and `convex … w` (the project's min-max
 *   convex combination, hybrid.ts: dense keeps alpha, BM25's share is split, 1 − w for the translated
 *   question's BM25 and w for the gloss signal).
 * The gloss signal is only used for a question in another language than the corpus, so an English
 * question's ranking is today's hybrid by construction (every row shows it). Answerable questions
 * only. Glossing is an indexing cost: the script reports Apertium's CPU seconds.
 *
 * - with `--dense`, the dense side over the glosses too: each gloss embedded as a passage (the
 *   multilingual model matching Spanish to Spanish instead of across languages), `gloss dense` alone
 *   (the question as asked), `hybrid + gloss dense 1/4` (the hybrid's score ×0.75 + the min-max gloss
 *   cosine ×0.25) and `hybrid, dense max(en, gloss)` (the hybrid with each chunk's dense score the larger
 *   of its English text's and its gloss's cosine); embedding the glosses costs what embedding the
 *   docs does (pytest's 1,444 chunks: 141 s here).
 *
 *   node --import tsx eval/glossRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev]
 *     [--k 5] [--cache <glosses.json>] [--dense] [--only <variant>] [--json]
 *
 * `--cache`: glosses are read from / written to this file (keyed by chunk id), so variants can be
 * compared without translating again; the CPU cost is measured only when it translates.
 * `--only`: report only `hybrid` and this variant (the held-out run of the variant chosen on dev).
 */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import { BM25_WEIGHTS, FTS_TOKENIZER } from '../pipeline/store/sqlite/sqliteStore.ts';
import { convexCombination, minMax } from '../pipeline/retrieval/hybrid.ts';
import { contentTerms } from '../pipeline/text/analysis.ts';
import { expandIdentifiers, ftsMatch, ftsTerms } from '../pipeline/text/codeTokens.ts';
import { protectCode, restoreCode, type Language } from '../pipeline/text/translate.ts';
import { cosine, meanVector } from '../pipeline/vectors.ts';
import type { Chunk, ScoredChunk, SearchHit } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { pairedPermutationTest } from './stats/paired.ts';
import { answerableQuestions, experimentArgs, questionPlan } from './docsQuestions.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '5' },
  cache: { type: 'string' },
  only: { type: 'string' },
  json: { type: 'boolean' },
  dense: { type: 'boolean' },
});
const k = Number(values.k);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const corpus = config.languages.corpus;
const alpha = config.retrieval.hybrid.alpha;
const depth = 50;

// ---- Glossing (index time) ----------------------------------------------------------------------

const APERTIUM: Record<Language, string> = { en: 'eng', es: 'spa' };
/** Chunks per Apertium run: one process per batch, each chunk flushed on its own (`-z`, NUL-separated). */
const BATCH = 200;

/** CPU seconds of this process's waited-for children (Apertium's pipeline), from /proc (Linux). */
function childCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function runApertium(mode: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('apertium', ['-u', '-z', '-f', 'none', mode, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`apertium ${mode} exited with ${code}: ${Buffer.concat(err).toString('utf8').split('\n')[0]}`)),
    );
  });
}

/** Each text in `to`, code held out; one Apertium run per batch (null-flushed: one output per input). */
async function gloss(texts: string[], from: Language, to: Language): Promise<string[]> {
  const mode = `${APERTIUM[from]}-${APERTIUM[to]}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-gloss-'));
  const out: string[] = [];
  try {
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH).map((t) => protectCode(t.normalize('NFC').replace(/\0/g, ' ')));
      const file = path.join(dir, 'in.txt');
      fs.writeFileSync(file, batch.map((p) => `${p.stream}\0`).join(''));
      const pieces = (await runApertium(mode, file)).split('\0');
      if (pieces.length < batch.length) throw new Error(`apertium ${mode}: ${pieces.length} outputs for ${batch.length} inputs`);
      batch.forEach((p, j) => out.push(restoreCode(pieces[j]!, p.spans)));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const chunks: Chunk[] = await store.get(await store.ids('docs'));
const askLanguages = [...new Set(questions.map((q) => q.lang))].filter((l) => l !== corpus) as Language[];
const glossLanguage: Language = askLanguages[0] ?? 'es';
let cost: { chunks: number; chars: number; cpuSeconds: number; wallSeconds: number } | undefined;
const cached: Record<string, string> = values.cache && fs.existsSync(values.cache) ? JSON.parse(fs.readFileSync(values.cache, 'utf8')) : {};
const missing = chunks.filter((c) => cached[c.id] === undefined);
if (missing.length) {
  const cpu0 = childCpuSeconds();
  const wall0 = Date.now();
  const glosses = await gloss(
    missing.map((c) => c.text),
    corpus,
    glossLanguage,
  );
  cost = { chunks: missing.length, chars: missing.reduce((s, c) => s + c.text.length, 0), cpuSeconds: childCpuSeconds() - cpu0, wallSeconds: (Date.now() - wall0) / 1000 };
  missing.forEach((c, i) => (cached[c.id] = glosses[i]!));
  if (values.cache) fs.writeFileSync(values.cache, JSON.stringify(cached));
}

// ---- BM25 over the glosses (Okapi, k1 1.2, b 0.75), terms with their counts -----------------------

/** Analysed terms of a text with repetitions: contentTerms word by word (it returns a set per text). */
function termList(text: string, language: Language): string[] {
  return (text.normalize('NFC').match(/[\p{L}\p{N}_]+/gu) ?? []).flatMap((w) => [...contentTerms(w, language)]);
}

/** Okapi BM25 over pre-analysed documents (terms with repetitions); ties by chunk id. */
function bm25Index(documents: { chunk: Chunk; terms: string[] }[]): (query: string[], n: number) => { chunk: Chunk; score: number }[] {
  const docs = documents.map(({ chunk, terms }) => {
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { chunk, tf, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avgLength = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  const N = docs.length;
  return (query, n) => {
    const terms = [...new Set(query)];
    return docs
      .map((d) => {
        let score = 0;
        for (const t of terms) {
          const f = d.tf.get(t);
          if (!f) continue;
          const idf = Math.log(1 + (N - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
          score += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (d.length / avgLength)));
        }
        return { chunk: d.chunk, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id))
      .slice(0, n);
  };
}

const glossTerms = new Map(chunks.map((c) => [c.id, termList(cached[c.id]!, glossLanguage)]));
const corpusTerms = new Map(chunks.map((c) => [c.id, termList(c.text, corpus)]));
/** The glosses alone, searched with the question as asked. */
const glossIndex = bm25Index(chunks.map((c) => ({ chunk: c, terms: glossTerms.get(c.id)! })));
/** Control: the same engine over the English texts, searched with the translation (is a gain the gloss, or the engine?). */
const corpusIndex = bm25Index(chunks.map((c) => ({ chunk: c, terms: corpusTerms.get(c.id)! })));
/** One bilingual field: the English text and its gloss, searched with the question and its translation. */
const bilingualIndex = bm25Index(chunks.map((c) => ({ chunk: c, terms: [...corpusTerms.get(c.id)!, ...glossTerms.get(c.id)!] })));
const glossBm25 = (question: string, n: number) => glossIndex([...contentTerms(question, glossLanguage)], n);

/**
 * The shape a product would have: a second FTS5 table per collection (the store's tokenizer and
 * column weights, sqliteStore.ts: title 2, text 1, identifiers 1), its rows the glosses keyed by
 * chunk, queried like the store's own (the OR of the question's terms). `stemmed`: the gloss and the
 * question go in as their Snowball stems (analysis.ts), since FTS5's tokenizer does not stem Spanish.
 */
function ftsGlossIndex(stemmed: boolean): (question: string, n: number) => { chunk: Chunk; score: number }[] {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE g USING fts5 (title, text, identifiers, tokenize = "${FTS_TOKENIZER}")`);
  const prep = (t: string) => (stemmed ? termList(t, glossLanguage).join(' ') : t);
  const insert = db.prepare('INSERT INTO g (rowid, title, text, identifiers) VALUES (?, ?, ?, ?)');
  db.transaction(() =>
    chunks.forEach((c, i) => {
      const text = cached[c.id]!.normalize('NFC');
      // The gloss's first line is the chunk's header (path › headings), the title's place.
      insert.run(i, prep(text.split('\n')[0]!), prep(text), expandIdentifiers(text));
    }),
  )();
  const search = db.prepare(`SELECT rowid AS i, -bm25(g, ${BM25_WEIGHTS.join(', ')}) AS score FROM g WHERE g MATCH ? ORDER BY score DESC, rowid LIMIT ?`);
  return (question, n) => {
    const match = ftsMatch(stemmed ? [...contentTerms(question, glossLanguage)] : ftsTerms(question));
    if (match === '') return [];
    return (search.all(match, n) as { i: number; score: number }[]).map((r) => ({ chunk: chunks[r.i]!, score: r.score }));
  };
}
const ftsGloss = ftsGlossIndex(false);

// ---- Dense over the glosses (`--dense`) ----------------------------------------------------------

/** Each gloss's passage vector, kept beside the glosses' cache (`<cache>.vectors.json`) when there is one. */
async function glossVectors(): Promise<Map<string, Float32Array>> {
  const file = values.cache ? `${values.cache}.vectors.json` : undefined;
  const kept: Record<string, number[]> = file && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const todo = chunks.filter((c) => kept[c.id] === undefined);
  for (let i = 0; i < todo.length; i += 64) {
    const batch = todo.slice(i, i + 64);
    (await embedder.embedPassages(batch.map((c) => cached[c.id]!))).forEach((v, j) => (kept[batch[j]!.id] = Array.from(v)));
    process.stderr.write(`\rglosses embedded: ${Math.min(i + 64, todo.length)}/${todo.length}`);
  }
  if (todo.length) process.stderr.write('\n');
  if (file && todo.length) fs.writeFileSync(file, JSON.stringify(kept));
  return new Map(chunks.map((c) => [c.id, Float32Array.from(kept[c.id]!)]));
}
const glossVectorOf = values.dense ? await glossVectors() : new Map<string, Float32Array>();
/** The `n` glosses closest to the vector. */
const glossKnn = (v: Float32Array, n: number): ScoredChunk[] =>
  chunks.map((c) => ({ chunk: c, score: cosine(v, glossVectorOf.get(c.id)!) })).sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id)).slice(0, n);
const ftsGlossStemmed = ftsGlossIndex(true);

// ---- Fusions -----------------------------------------------------------------------------------

type Ranked = { id: string; path: string }[];
const ranked = (hits: { chunk: Chunk }[]): Ranked => hits.map((h) => ({ id: h.chunk.id, path: h.chunk.citation.path }));

/** Reciprocal rank fusion of chunk rankings (k0 60, equal weights), ties by chunk id. */
function rrf(lists: Ranked[], k0 = 60): Ranked {
  const score = new Map<string, { path: string; s: number }>();
  for (const list of lists) list.forEach((h, i) => {
    const e = score.get(h.id) ?? { path: h.path, s: 0 };
    e.s += 1 / (k0 + i + 1);
    score.set(h.id, e);
  });
  return [...score.entries()].sort((a, b) => b[1].s - a[1].s || a[0].localeCompare(b[0])).map(([id, e]) => ({ id, path: e.path }));
}

/**
 * The project's fusion (hybrid.ts): min-max per signal, convex weights. Dense keeps `alpha`; BM25's
 * share is split between the translated question (1 − wGloss) and the glosses (wGloss).
 */
function convex3(hybrid: SearchHit[], glossHits: { chunk: Chunk; score: number }[], wGloss: number): Ranked {
  // (`glossHits` may be any second lexical ranking: the bilingual field's too.)
  const e = new Map<string, { path: string; dense: number; bm25: number; gloss: number }>();
  for (const h of hybrid) e.set(h.chunk.id, { path: h.chunk.citation.path, dense: h.denseNorm, bm25: h.bm25Norm, gloss: 0 });
  minMax(glossHits.map((g) => g.score)).forEach((n, i) => {
    const g = glossHits[i]!;
    const x = e.get(g.chunk.id) ?? { path: g.chunk.citation.path, dense: 0, bm25: 0, gloss: 0 };
    x.gloss = n;
    e.set(g.chunk.id, x);
  });
  const s = (x: { dense: number; bm25: number; gloss: number }) => alpha * x.dense + (1 - alpha) * ((1 - wGloss) * x.bm25 + wGloss * x.gloss);
  return [...e.entries()].sort((a, b) => s(b[1]) - s(a[1]) || a[0].localeCompare(b[0])).map(([id, x]) => ({ id, path: x.path }));
}

// ---- Evaluation ----------------------------------------------------------------------------------

type Row = { id: string; pair: string; lang: string; mode: string; recall: number; acc1: number };
const rows: Row[] = [];
const started = Date.now();
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const vector = meanVector(await embedder.embedQueries(plan.dense));
  const hybrid = await hybridCandidates(store, vector, 'docs', plan.bm25, depth, alpha);
  // Gloss signal only for a question in another language than the corpus: English keeps the hybrid.
  const glossHits = q.lang === corpus ? [] : glossBm25(q.question, depth);
  const crossLingual = q.lang !== corpus;
  // The bilingual field searched with the question as asked: Spanish developers keep English jargon
  // (test, fixture, plugin) that the gloss has translated (prueba, accesorio…); the English text keeps it.
  const askedHits = crossLingual ? bilingualIndex([...contentTerms(q.question, glossLanguage)], depth) : [];
  const ftsStemHits = crossLingual ? ftsGlossStemmed(q.question, depth) : [];
  const bilingualHits = crossLingual ? bilingualIndex([...contentTerms(q.question, glossLanguage), ...contentTerms(translation ?? '', corpus)], depth) : [];
  const modes: Record<string, () => Ranked> = {
    hybrid: () => ranked(hybrid),
    'gloss bm25': () => (crossLingual ? ranked(glossHits) : ranked(hybrid)),
    'rrf(hybrid,gloss)': () => (crossLingual ? rrf([ranked(hybrid), ranked(glossHits)]) : ranked(hybrid)),
    'convex gloss 1/2': () => (crossLingual ? convex3(hybrid, glossHits, 0.5) : ranked(hybrid)),
    'convex gloss 1/3': () => (crossLingual ? convex3(hybrid, glossHits, 1 / 3) : ranked(hybrid)),
    'convex gloss 1': () => (crossLingual ? convex3(hybrid, glossHits, 1) : ranked(hybrid)),
    'fts gloss': () => (crossLingual ? ranked(ftsGloss(q.question, depth)) : ranked(hybrid)),
    'fts gloss stemmed': () => (crossLingual ? ranked(ftsStemHits) : ranked(hybrid)),
    'rrf(hybrid,ftsstem)': () => (crossLingual ? rrf([ranked(hybrid), ranked(ftsStemHits)]) : ranked(hybrid)),
    'convex ftsstem 1/2': () => (crossLingual ? convex3(hybrid, ftsStemHits, 0.5) : ranked(hybrid)),
    'convex ftsstem 1': () => (crossLingual ? convex3(hybrid, ftsStemHits, 1) : ranked(hybrid)),
    'bm25* translated': () => (crossLingual ? ranked(corpusIndex([...contentTerms(translation ?? q.question, corpus)], depth)) : ranked(hybrid)),
    'bilingual bm25': () => (crossLingual ? ranked(bilingualHits) : ranked(hybrid)),
    'rrf(hybrid,biling)': () => (crossLingual ? rrf([ranked(hybrid), ranked(bilingualHits)]) : ranked(hybrid)),
    'convex biling 1': () => (crossLingual ? convex3(hybrid, bilingualHits, 1) : ranked(hybrid)),
    'biling bm25 asked': () => (crossLingual ? ranked(askedHits) : ranked(hybrid)),
    'convex bil.asked 1/2': () => (crossLingual ? convex3(hybrid, askedHits, 0.5) : ranked(hybrid)),
    'convex bil.asked 1': () => (crossLingual ? convex3(hybrid, askedHits, 1) : ranked(hybrid)),
  };
  if (values.dense) {
    const [asked] = await embedder.embedQueries([q.question]);
    const glossDense = crossLingual ? glossKnn(asked!, depth) : [];
    modes['gloss dense'] = () => (crossLingual ? ranked(glossDense) : ranked(hybrid));
    modes['hybrid + gloss dense 1/4'] = () => {
      if (!crossLingual) return ranked(hybrid);
      const e = new Map<string, { chunk: Chunk; s: number }>(hybrid.map((h) => [h.chunk.id, { chunk: h.chunk, s: 0.75 * h.score }]));
      minMax(glossDense.map((g) => g.score)).forEach((n, i) => {
        const g = glossDense[i]!;
        const x = e.get(g.chunk.id) ?? { chunk: g.chunk, s: 0 };
        x.s += 0.25 * n;
        e.set(g.chunk.id, x);
      });
      return ranked([...e.values()].sort((a, b) => b.s - a.s || a.chunk.id.localeCompare(b.chunk.id)));
    };
    const bm25 = crossLingual ? await store.bm25('docs', plan.bm25, depth, plan.phrases) : [];
    const english = crossLingual ? await store.knn('docs', vector, depth) : [];
    modes['hybrid, dense max(en, gloss)'] = () => {
      if (!crossLingual) return ranked(hybrid);
      const best = new Map<string, ScoredChunk>();
      for (const h of [...english, ...glossDense]) if ((best.get(h.chunk.id)?.score ?? -Infinity) < h.score) best.set(h.chunk.id, h);
      const dense = [...best.values()].sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id)).slice(0, depth);
      return ranked(convexCombination(bm25, dense, alpha));
    };
  }
  for (const [mode, run] of Object.entries(modes)) {
    if (values.only && mode !== 'hybrid' && mode !== values.only) continue;
    const files = distinct(run().map((h) => h.path));
    rows.push({ id: q.id, pair: q.pair ?? q.id, lang: q.lang, mode, recall: recallAtK(files, q.gold.files, k), acc1: accuracyAt1(files, q.gold.files) });
  }
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
if (values.json) {
  console.log(JSON.stringify({ instance, k, model: embedder.id, glossLanguage, cost, rows }, null, 2));
} else {
  const langs = [...new Set(rows.map((r) => r.lang))].sort();
  const counts = langs.map((l) => `${rows.filter((r) => r.lang === l && r.mode === 'hybrid').length} ${l}`).join(', ');
  console.log(`docs collection of ${instance} (${chunks.length} chunks), ${counts} questions${values.split ? ` (${values.split})` : ''}, model ${embedder.id}, alpha ${alpha}, glosses ${corpus}→${glossLanguage}`);
  if (cost) console.log(`glossing: ${cost.chunks} chunks, ${(cost.chars / 1e6).toFixed(2)} M chars, Apertium CPU ${cost.cpuSeconds.toFixed(1)} s, wall ${cost.wallSeconds.toFixed(1)} s`);
  else console.log(`glossing: all ${chunks.length} glosses from ${values.cache} (no translation run)`);
  console.log(`${'mode'.padEnd(20)} ${langs.map((l) => `R@${k} ${l}`.padStart(9) + `Acc@1 ${l}`.padStart(10)).join(' ')}   ${langs.filter((l) => l !== corpus).map((l) => `vs hybrid ${l}: p(R@${k}) p(Acc@1)`).join(' ')}`);
  for (const mode of [...new Set(rows.map((r) => r.mode))]) {
    const cells = langs.map((l) => {
      const rs = rows.filter((r) => r.mode === mode && r.lang === l);
      return `${(100 * mean(rs.map((r) => r.recall))).toFixed(1).padStart(9)}${(100 * mean(rs.map((r) => r.acc1))).toFixed(1).padStart(10)}`;
    });
    // Paired sign-flip test against the hybrid on the same questions (raw p, not corrected).
    const tests = langs
      .filter((l) => l !== corpus)
      .map((l) => {
        const a = rows.filter((r) => r.mode === 'hybrid' && r.lang === l);
        const b = rows.filter((r) => r.mode === mode && r.lang === l);
        const p = (f: (r: Row) => number) => pairedPermutationTest(a.map(f), b.map(f)).p.toFixed(3);
        return mode === 'hybrid' ? '' : `${p((r) => r.recall).padStart(8)} ${p((r) => r.acc1).padStart(8)}`;
      });
    console.log(`${mode.padEnd(20)} ${cells.join(' ')}   ${tests.join(' ')}`);
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s to search)`);
}
await close();
process.exit(0);
