/**
 * Where an index run's CPU goes with the ONNX e5 embedder (#14 item 2): chunking (the JavaScript
 * tokenizer counting candidate pieces), then embedding the same chunks in batches of
 * `embedding.batchSize` in three ways, each timed in CPU seconds of the whole process (onnxruntime's
 * threads included):
 *   file     — batches in file order, as the indexer sent them before #14 item 2 (each batch padded to its longest chunk);
 *   sorted   — all chunks sorted by token count first (what the indexer does now);
 *   spin     — sorted, with onnxruntime's intra-op threads spinning between operators (its default; cita turns it off).
 *
 *   node --import tsx bench/index-profile.ts <instance or config file> [--limit 300] [--modes file,sorted,spin] [--threads 2]
 *
 * Padding is reported as padded tokens / real tokens (1.00 = no waste). Nothing is written.
 */
import { chunkDocument } from '../pipeline/chunking/index.ts';
import { findRoot, loadConfig } from '../pipeline/config/load.ts';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import { embedderOptions, resolvePaths, scanSources } from '../pipeline/instance.ts';
import { sortedByLength } from '../pipeline/index/indexer.ts';
import type { Chunk, Embedder } from '../pipeline/types.ts';
import { arg } from './support/args.ts';

const instance = process.argv[2];
if (!instance || instance.startsWith('--')) throw new Error('usage: bench/index-profile.ts <instance or config file> [--limit N] [--modes file,sorted,spin]');
const root = findRoot();
const { config } = loadConfig(instance, { root });
const paths = resolvePaths(config, root);
const limit = Number(arg('limit', '100000'));
const modes = arg('modes', 'file,sorted,spin').split(',');
const threads = Number(arg('threads', '0')) || undefined;

function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

async function open(spin: boolean): Promise<Embedder> {
  // The instance's model, in this process (not isolated), with this run's thread count.
  const base = { ...embedderOptions(config, paths), isolate: false, threads: threads ?? config.embedding.threads };
  if (base.provider !== 'transformers') return createEmbedder(base);
  // The same model as the instance's, with the spinning choice of this mode.
  return createEmbedder({ ...base, spin });
}

const t0 = performance.now();
const loadCpu = process.cpuUsage();
const embedder = await open(false);
console.log(`model load: ${cpuSince(loadCpu).toFixed(1)} CPU s, ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// 1. Chunking, with every count the chunkers ask for counted and timed.
let calls = 0;
let chars = 0;
let countMs = 0;
const counter = {
  window: embedder.window,
  countTokens(text: string): number {
    calls++;
    chars += text.length;
    const t = performance.now();
    const n = embedder.countTokens(text);
    countMs += performance.now() - t;
    return n;
  },
};
const scan = scanSources(config, paths);
const chunkCpu = process.cpuUsage();
const t1 = performance.now();
const chunks: Chunk[] = [];
for (const doc of scan.documents) chunks.push(...(await chunkDocument(doc, counter, { maxTokens: config.chunking.maxTokens, lineWindow: config.chunking.lineWindow })));
const chunkChars = chunks.reduce((s, c) => s + c.text.length, 0);
console.log(
  `chunking: ${scan.documents.length} files → ${chunks.length} chunks in ${cpuSince(chunkCpu).toFixed(1)} CPU s (${((performance.now() - t1) / 1000).toFixed(1)} s); ` +
    `${calls} token counts over ${chars} characters (${(chars / chunkChars).toFixed(1)}× the chunks' text), ${(countMs / 1000).toFixed(1)} s in countTokens`,
);

const work = chunks.slice(0, limit);
const batch = config.embedding.batchSize;
const tokens = work.reduce((s, c) => s + c.tokens, 0);
function padded(order: Chunk[]): number {
  let n = 0;
  for (let i = 0; i < order.length; i += batch) {
    const b = order.slice(i, i + batch);
    n += b.length * Math.max(...b.map((c) => c.tokens));
  }
  return n;
}

// 2. Embedding the same chunks, per mode.
console.log(`embedding ${work.length} chunks (${tokens} tokens), batches of ${batch}, intra-op threads ${threads ?? 'default'}:`);
console.log(`${'mode'.padEnd(8)} ${'CPU s'.padStart(7)} ${'wall s'.padStart(7)} ${'CPU ms/chunk'.padStart(12)} ${'padding'.padStart(8)}`);
let current: Embedder | undefined = embedder;
for (const mode of modes) {
  const e: Embedder = mode === 'spin' ? await open(true) : (current ?? (await open(false)));
  current = mode === 'spin' ? undefined : e;
  const order = mode === 'file' ? work : sortedByLength(work);
  const start = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < order.length; i += batch) await e.embedPassages(order.slice(i, i + batch).map((c) => c.text));
  const cpu = cpuSince(start);
  console.log(
    `${mode.padEnd(8)} ${cpu.toFixed(1).padStart(7)} ${((performance.now() - t) / 1000).toFixed(1).padStart(7)} ${((1000 * cpu) / work.length).toFixed(0).padStart(12)} ${(padded(order) / tokens).toFixed(2).padStart(8)}`,
  );
  if (mode === 'spin') await e.close();
}
await current?.close();
process.exit(0);
