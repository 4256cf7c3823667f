/**
 * Whether stemming the docs' BM25 would help, in either language (#15): the instance's docs chunks
 * copied into two in-memory FTS5 tables, columns and weights as the SQLite store's, one with its
 * tokenizer (unicode61, no stemming: the control, checked equal to the store's own BM25) and one
 * with FTS5's `porter` stemmer on top; each searched with the text `cita search` gives BM25 (the
 * translation of a Spanish question), alone and fused with the store's dense hits as the hybrid
 * search fuses them. File Recall@k and Acc@1 per language, answerable questions of a cita dataset.
 * A research tool: its figures are not an A/B.
 *
 *   node --import tsx eval/stemRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--k 5]
 */
import Database from 'better-sqlite3';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { convexCombination } from '../pipeline/retrieval/hybrid.ts';
import { searchFields } from '../pipeline/store/shared.ts';
import { BM25_WEIGHTS, FTS_TOKENIZER } from '../pipeline/store/sqlite/sqliteStore.ts';
import { ftsQuery } from '../pipeline/text/codeTokens.ts';
import type { Chunk, ScoredChunk } from '../pipeline/types.ts';
import { meanVector } from '../pipeline/vectors.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ k: { type: 'string', default: '5' } });
const k = Number(values.k);
const depth = 50;
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const alpha = config.retrieval.hybrid.alpha;

// The store's FTS5 columns, tokenizer and bm25 weights; `porter` wraps that tokenizer.
const TOKENIZERS = { plain: FTS_TOKENIZER, porter: `porter ${FTS_TOKENIZER}` };
const docs = (await store.get(await store.ids())).filter((c) => c.collection === 'docs');
const db = new Database(':memory:');
const search: Record<string, Database.Statement> = {};
for (const [name, tokenizer] of Object.entries(TOKENIZERS)) {
  db.exec(`CREATE VIRTUAL TABLE fts_${name} USING fts5 (title, text, identifiers, tokenize = "${tokenizer}")`);
  const insert = db.prepare(`INSERT INTO fts_${name} (rowid, title, text, identifiers) VALUES (?, ?, ?, ?)`);
  db.transaction(() => docs.forEach((c, i) => insert.run(i, ...Object.values(searchFields(c.title, c.text)))))();
  search[name] = db.prepare(`SELECT rowid, -bm25(fts_${name}, ${BM25_WEIGHTS.join(', ')}) AS score FROM fts_${name} WHERE fts_${name} MATCH ? ORDER BY score DESC, rowid LIMIT ${depth}`);
}
const bm25 = (name: string, text: string): ScoredChunk[] => {
  const match = ftsQuery(text);
  if (match === '') return [];
  return (search[name]!.all(match) as { rowid: number; score: number }[]).map((r) => ({ chunk: docs[r.rowid]! as Chunk, score: r.score }));
};
const filesOf = (hits: { chunk: Chunk }[]) => distinct(hits.map((h) => h.chunk.citation.path!));

const rows: ModeRow[] = [];
let controlEqual = 0;
for (const q of questions) {
  const { plan } = await questionPlan(config, q, store);
  const vectors = await embedder.embedQueries(plan.dense);
  const dense = await store.knn('docs', meanVector(vectors), depth);
  const plain = bm25('plain', plan.bm25);
  const stemmed = bm25('porter', plan.bm25);
  // The control must rank as the store does (ties aside, which the store breaks by chunk id).
  const storeHits = await store.bm25('docs', plan.bm25, depth);
  if (storeHits.map((h) => h.score.toFixed(9)).join() === plain.map((h) => h.score.toFixed(9)).join()) controlEqual++;
  const modes: Record<string, { chunk: Chunk }[]> = {
    'bm25 (store tokenizer)': plain,
    'bm25 porter': stemmed,
    hybrid: convexCombination(storeHits, dense, alpha),
    'hybrid, porter bm25': convexCombination(stemmed, dense, alpha),
  };
  for (const [mode, hits] of Object.entries(modes)) {
    const ranked = filesOf(hits);
    rows.push({ lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) });
  }
}

console.log(`${instance} docs (${docs.length} chunks), ${questions.length} questions${values.split ? `, split ${values.split}` : ''}, alpha ${alpha}; control scores equal to the store's BM25 on ${controlEqual}/${questions.length}`);
for (const line of modeTable(rows, k, 24)) console.log(line);
db.close();
await close();
process.exit(0);
