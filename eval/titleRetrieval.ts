/**
 * Do chunk titles carry part of a language gap in docs retrieval (#15 item 2, "chunk titles")? A docs
 * chunk is indexed with a header in English — its file path and heading path — at the head of the
 * embedded text, and with its heading path as BM25's title column (weight 2). An English question
 * shares the headings' words, a Spanish one only through its translation or the model. Docs
 * collection alone, file Recall@k / Acc@1 per language, the hybrid as `cita search --source docs` runs
 * it (BM25 on the search plan's text, the dense side on its vector), with titles:
 *   - in both (today, the index as built);
 *   - out of BM25 (title column empty, the header cut from the text), the dense side as today;
 *   - out of the dense side (each body embedded alone, as a passage), BM25 as today;
 *   - out of both;
 *   - glossed in the dense side: the headings also in the question language (`--gloss es`, Apertium
 *     from the corpus language), after the header of each embedded text; BM25 as today;
 *   - the header as a second dense field (`--header-weights 0.25,0.5`): a chunk's dense score is
 *     (1 − w) × its cosine to the question + w × its header's (embedded alone); `mixed`: the two
 *     vectors mixed into one by the same weights.
 * The variants are in-memory SQLite stores filled from the index's docs chunks; the bodies' vectors
 * go through the instance's vector cache (the first run embeds them: about a tenth of a CPU-second
 * per chunk).
 *
 *   node --import tsx eval/titleRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--k 5] [--gloss es] [--header-weights 0.25,0.5]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { vectorKey } from '../pipeline/index/indexer.ts';
import { openInstance, openVectorCache } from '../pipeline/instance.ts';
import { convexCombination } from '../pipeline/retrieval/hybrid.ts';
import { bm25Options } from '../pipeline/store/backend.ts';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { translatorFor, type Language } from '../pipeline/text/translate.ts';
import type { Chunk, ScoredChunk, StoredChunk } from '../pipeline/types.ts';
import { cosine } from '../pipeline/vectors.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ k: { type: 'string', default: '5' }, gloss: { type: 'string', default: 'es' }, 'header-weights': { type: 'string', default: '0.25,0.5' } });
const k = Number(values.k);
const depth = 50;
const headerWeights = values['header-weights']!.split(',').filter((w) => w.trim() !== '').map(Number);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close, paths } = await openInstance(instance, { purpose: 'search', root });

/** A docs chunk's header and body: its text before and after the blank line that ends the header (docChunkText). */
const headerOf = (c: Chunk) => c.text.slice(0, c.text.indexOf('\n\n'));
const bodyOf = (c: Chunk) => c.text.slice(c.text.indexOf('\n\n') + 2);

/** Vectors of texts through the vector cache: what it lacks is embedded (shortest first) and kept there. */
async function vectorsOf(texts: string[]): Promise<Float32Array[]> {
  const cache = openVectorCache(config, paths);
  try {
    const keys = texts.map((t) => vectorKey({ text: t } as Chunk));
    const missing = [...new Set(texts.filter((_, i) => !cache.get(embedder.id, keys[i]!)))].sort((a, b) => a.length - b.length);
    const started = process.cpuUsage();
    for (let i = 0; i < missing.length; i += 32) {
      const batch = missing.slice(i, i + 32);
      const vectors = await embedder.embedPassages(batch);
      cache.putMany(embedder.id, batch.map((t, j) => ({ hash: vectorKey({ text: t } as Chunk), vector: vectors[j]! })));
      if ((i / 32) % 10 === 0) console.error(`embedded ${Math.min(i + 32, missing.length)}/${missing.length}`);
    }
    const cpu = process.cpuUsage(started);
    if (missing.length) console.error(`embedded ${missing.length} texts, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU`);
    return keys.map((key) => cache.get(embedder.id, key)!);
  } finally {
    cache.close();
  }
}

/** An in-memory store of the chunks, each with its own title and text, and the vector of `embedded`'s text. */
async function storeOf(chunks: Chunk[], as: (c: Chunk) => Pick<Chunk, 'title' | 'text'>, embedded: (c: Chunk) => string): Promise<SqliteStore> {
  const vectors = await vectorsOf(chunks.map(embedded));
  const s = SqliteStore.open(':memory:', { dims: embedder.dims, ...bm25Options(config) });
  await s.upsert(chunks.map((c, i): StoredChunk => ({ ...c, ...as(c), vector: vectors[i]! })));
  return s;
}

const chunks = await store.get(await store.ids('docs'));
console.error(`${chunks.length} docs chunks`);
const withTitles = await storeOf(chunks, (c) => c, (c) => c.text);
const untitled = await storeOf(chunks, (c) => ({ title: '', text: bodyOf(c) }), bodyOf);
const translator = translatorFor(config.languages.translator)!;
const glosses = new Map<string, string>();
for (const c of chunks) {
  const headings = c.citation.headings ?? [];
  const key = headings.join('\n');
  if (headings.length && !glosses.has(key)) glosses.set(key, await translator.translate(headings.join(' › '), config.languages.corpus, values.gloss as Language));
}
/** The embedded text with the headings' gloss after the header: header, gloss, blank line, body. */
const glossed = (c: Chunk) => {
  const gloss = glosses.get((c.citation.headings ?? []).join('\n'));
  return gloss ? `${headerOf(c)}\n${gloss}\n\n${bodyOf(c)}` : c.text;
};
const bilingual = await storeOf(chunks, (c) => c, glossed);

// The header as a second dense field: each chunk's cosine to the question mixed with its header's.
const chunkVectors = await vectorsOf(chunks.map((c) => c.text));
const headerVectors = await vectorsOf(chunks.map(headerOf));
/** The dense side in memory: each chunk scored by `score` (cosines), best first, ties by id, the first `depth`. */
const knnBy = (score: (v: Float32Array, i: number) => number) => (v: Float32Array) =>
  chunks.map((c, i) => ({ chunk: c, score: score(v, i) })).sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id)).slice(0, depth);
const fieldKnn = (w: number) => knnBy((v, i) => (1 - w) * cosine(v, chunkVectors[i]!) + w * cosine(v, headerVectors[i]!));
// Mixed into one vector: cosine ignores its length, so no scaling is needed.
const mixedKnn = (w: number) => {
  const mixed = chunkVectors.map((a, i) => a.map((x, j) => (1 - w) * x + w * headerVectors[i]![j]!));
  return knnBy((v, i) => cosine(v, mixed[i]!));
};

type Dense = (v: Float32Array) => Promise<ScoredChunk[]> | ScoredChunk[];
const knnOf = (s: SqliteStore): Dense => (v) => s.knn('docs', v, depth);
const variants: Record<string, { bm25: SqliteStore; dense: Dense }> = {
  'titles in both (today)': { bm25: withTitles, dense: knnOf(withTitles) },
  'titles out of BM25': { bm25: untitled, dense: knnOf(withTitles) },
  'titles out of dense': { bm25: withTitles, dense: knnOf(untitled) },
  'titles out of both': { bm25: untitled, dense: knnOf(untitled) },
  [`titles glossed (${values.gloss}) in dense`]: { bm25: withTitles, dense: knnOf(bilingual) },
  ...Object.fromEntries(
    headerWeights.flatMap((w) => [
      [`header field ${w}`, { bm25: withTitles, dense: fieldKnn(w) }],
      // The same weight mixed into one vector per chunk (what a store of one vector per chunk could hold).
      [`header mixed ${w}`, { bm25: withTitles, dense: mixedKnn(w) }],
    ]),
  ),
};

const alpha = config.retrieval.hybrid.alpha;
const rows: ModeRow[] = [];
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [asked, translated] = await embedder.embedQueries([q.question, translation ?? q.question]);
  const vector = planVector(plan, q.question, asked!, translated!);
  for (const [mode, v] of Object.entries(variants)) {
    const hits = convexCombination(await v.bm25.bm25('docs', plan.bm25, depth), await v.dense(vector), alpha);
    const ranked = distinct(hits.map((h) => h.chunk.citation.path));
    rows.push({ lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) });
  }
}
console.log(`docs collection, ${questions.length} questions, hybrid alpha ${alpha}`);
for (const line of modeTable(rows, k)) console.log(line);
await withTitles.close();
await untitled.close();
await bilingual.close();
await close();
process.exit(0);
