/**
 * Load on `cita serve`: N `ask` requests over HTTP from C concurrent clients; throughput, latency
 * p50/p95/p99, errors (must be 0) and the server's resident memory across rounds (must stay flat).
 *
 *   node --import tsx bench/serve-load.ts [--instance pytest] [--n 200] [--concurrency 8] [--rounds 3]
 *   node --import tsx bench/serve-load.ts --demo              # a small project built and indexed on the fly
 *   node --import tsx bench/serve-load.ts --url http://127.0.0.1:4000 --instance pytest   # a running server
 *
 * The server is started as a child process (`cita serve --port 0`) so its memory is its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { percentile } from '../eval/metrics/percentile.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { makeDemoProject, startServer } from './support/demo.ts';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const num = (name: string, fallback: number) => Number(opt(name) ?? fallback);
const demo = argv.includes('--demo');
const n = num('n', 200);
const concurrency = num('concurrency', 8);
const rounds = num('rounds', 3);
const repoRoot = findRoot(path.join(path.dirname(new URL(import.meta.url).pathname), '..'));

const PYTEST_QUESTIONS = [
  'How do I skip a test on Windows?',
  '¿Cómo omito un test en Windows?',
  'How do I use fixtures with parametrize?',
  '¿Cómo parametrizo un fixture?',
  'What does the monkeypatch fixture do?',
  'Where is the bug from issue #5103?',
  'How are assertion rewrites implemented?',
  '¿Dónde se define la clase LogCaptureFixture?',
];
const DEMO_QUESTIONS = [
  'How do I skip a test on Windows?',
  '¿Cómo omito un test en Windows?',
  'what does parse_config do?',
  'Where is the bug from issue #42?',
  'How do I install widgets?',
  '¿Cómo instalo widgets?',
];

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

const QUERY = 'query($i: String!, $q: String!) { ask(instance: $i, question: $q) { language answer { text citations { marker path url } } slots { collection slots } } }';

async function askOnce(url: string, instance: string, question: string): Promise<{ ms: number; ok: boolean; error?: string }> {
  const t = performance.now();
  try {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, variables: { i: instance, q: question } }) });
    const body = (await res.json()) as { data?: { ask?: { answer?: { text: string } } }; errors?: { message: string }[] };
    const ms = performance.now() - t;
    if (body.errors?.length) return { ms, ok: false, error: body.errors[0]!.message };
    if (!body.data?.ask?.answer?.text) return { ms, ok: false, error: 'empty answer' };
    return { ms, ok: true };
  } catch (e) {
    return { ms: performance.now() - t, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

async function round(url: string, instance: string, questions: string[], total: number): Promise<{ latencies: number[]; errors: string[]; seconds: number }> {
  let next = 0;
  const latencies: number[] = [];
  const errors: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const r = await askOnce(url, instance, questions[i % questions.length]!);
        latencies.push(r.ms);
        if (!r.ok) errors.push(r.error!);
      }
    }),
  );
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

const demoProject = demo ? makeDemoProject(repoRoot, 'cita-load-') : undefined;
const target = demoProject ?? { root: opt('root') ?? repoRoot, instance: opt('instance') ?? 'pytest' };
const questionsFile = opt('questions');
const questions = questionsFile
  ? fs.readFileSync(questionsFile, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean)
  : target.instance === 'pytest'
    ? PYTEST_QUESTIONS
    : DEMO_QUESTIONS;

const external = opt('url');
const server = external ? { url: external, child: undefined } : await startServer(target.root, repoRoot);
const pid = server.child?.pid;
try {
  const warm = await round(server.url, target.instance, questions, Math.max(questions.length, concurrency));
  if (warm.errors.length) throw new Error(`warm-up failed: ${warm.errors[0]}`);
  console.log(`cita serve load: instance ${target.instance}, ${n} asks per round, ${concurrency} concurrent clients, ${rounds} rounds, ${questions.length} questions (en+es)`);
  const rss0 = pid ? rssMb(pid) : NaN;
  console.log(`  server RSS after warm-up: ${rss0.toFixed(0)} MB`);
  let allErrors = 0;
  for (let r = 1; r <= rounds; r++) {
    const res = await round(server.url, target.instance, questions, n);
    allErrors += res.errors.length;
    const rss = pid ? rssMb(pid) : NaN;
    console.log(
      `  round ${r}: ${(n / res.seconds).toFixed(1)} req/s; latency p50 ${percentile(res.latencies, 0.5).toFixed(0)} ms, p95 ${percentile(res.latencies, 0.95).toFixed(0)} ms, p99 ${percentile(res.latencies, 0.99).toFixed(0)} ms, max ${Math.max(...res.latencies).toFixed(0)} ms; errors ${res.errors.length}; server RSS ${rss.toFixed(0)} MB`,
    );
    for (const e of [...new Set(res.errors)].slice(0, 3)) console.log(`    error: ${e}`);
  }
  const rssEnd = pid ? rssMb(pid) : NaN;
  console.log(`  memory: ${rss0.toFixed(0)} MB after warm-up → ${rssEnd.toFixed(0)} MB after ${rounds * n} asks (${(rssEnd - rss0 >= 0 ? '+' : '') + (rssEnd - rss0).toFixed(0)} MB)`);
  console.log(`  errors: ${allErrors}`);
  process.exitCode = allErrors ? 1 : 0;
} finally {
  if (server.child) {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child!.once('exit', r));
  }
  demoProject?.cleanup();
}
