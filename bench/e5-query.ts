/**
 * Latency of one one-line question's embedding on the ONNX e5 path (#14 item 3; goal p50 ≤ 20 ms),
 * per onnxruntime setting: intra-op threads 1 / 2, spinning off (cita's default) / on
 * (onnxruntime's). Each question is embedded alone, as `cita search` / `cita serve` do; the
 * tokenizer's share is timed apart (countQueryTokens: the same encode the embedder does).
 * The settings run interleaved, question by question, so a noisy neighbour hits them alike.
 *
 *   node --import tsx bench/e5-query.ts [--queries 60] [--rounds 3] [--dir .cita/models/e5-small-onnx-0.3.0]
 */
import path from 'node:path';
import { percentile } from '../eval/metrics/percentile.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import type { Embedder } from '../pipeline/types.ts';
import { datasetQuestions } from './support/e5-texts.ts';
import { arg } from './support/args.ts';

const root = findRoot();
const dir = path.resolve(root, arg('dir', '.cita/models/e5-small-onnx-0.3.0'));
const nQueries = Number(arg('queries', '60'));
const rounds = Number(arg('rounds', '3'));
const questions = datasetQuestions(root)
  .filter((q) => q.group.startsWith('pytest-docs'))
  .map((q) => q.text)
  .slice(0, nQueries);

const settings = [
  { name: '1 thread, no spin', threads: 1, spin: false },
  { name: '1 thread, spin', threads: 1, spin: true },
  { name: '2 threads, no spin', threads: 2, spin: false },
  { name: '2 threads, spin', threads: 2, spin: true },
];
const engines: { name: string; e: Embedder; ms: number[]; cpu: number }[] = [];
for (const s of settings) {
  const e = await createEmbedder({ provider: 'transformers', dir, threads: s.threads, spin: s.spin });
  await e.embedQueries(questions.slice(0, 3)); // warm-up: first-call allocations
  engines.push({ name: s.name, e, ms: [], cpu: 0 });
}
const tokenizeMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (const q of questions) {
    const t = performance.now();
    engines[0]!.e.countQueryTokens!(q);
    tokenizeMs.push(performance.now() - t);
    for (const x of r % 2 ? [...engines].reverse() : engines) {
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      await x.e.embedQueries([q]);
      x.ms.push(performance.now() - t0);
      const d = process.cpuUsage(cpu);
      x.cpu += (d.user + d.system) / 1000;
    }
  }
}
const tokens = questions.map((q) => engines[0]!.e.countQueryTokens!(q));
console.log(`${questions.length} one-line questions × ${rounds} rounds, mean ${(tokens.reduce((a, b) => a + b, 0) / tokens.length).toFixed(0)} tokens; tokenizing alone p50 ${percentile(tokenizeMs, 0.5).toFixed(2)} ms`);
console.log(`${'setting'.padEnd(20)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'CPU ms/q'.padStart(9)}`);
for (const x of engines) {
  console.log(`${x.name.padEnd(20)} ${percentile(x.ms, 0.5).toFixed(1).padStart(7)} ${percentile(x.ms, 0.95).toFixed(1).padStart(7)} ${(x.cpu / x.ms.length).toFixed(1).padStart(9)}`);
  await x.e.close();
}
process.exit(0);
