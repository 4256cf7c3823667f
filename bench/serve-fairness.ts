/**
 * One client's burst against another's question, on `cita serve` over the demo project:
 *
 *   node --import tsx bench/serve-fairness.ts [--burst 16] [--runs 5]
 *
 * Client A (127.0.0.1) sends `--burst` distinct questions of ~470 tokens (near the model window) at
 * once; once its first answer is back, client B (127.0.0.2) asks a short question. Prints B's latency
 * alone and during the burst, as multiples of one of A's questions alone (B's wait is its share of the
 * model: about one of A's questions per model call of B's), how many of A's answers came between B's
 * question and B's answer, /healthz latency idle and during the burst (the engine runs off the main
 * thread), and what becomes of a ~4,000-token question (refused, and how fast).
 */
import http from 'node:http';
import path from 'node:path';
import { percentile } from '../eval/metrics/percentile.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { makeDemoProject, startServer } from './support/demo.ts';

const argv = process.argv.slice(2);
const num = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const burst = num('burst', 16);
const runs = num('runs', 5);
const repoRoot = findRoot(path.join(path.dirname(new URL(import.meta.url).pathname), '..'));

const ASK = 'query($q: String!, $o: AskOptionsInput) { ask(instance: "demo", question: $q, options: $o) { answer { text } } }';
const SHORT = 'How do I skip a test on Windows?';
const long = (i: number) => `Question ${i} of a long burst: ${'how do I skip a test on windows with a marker? '.repeat(38)}`;

interface Reply {
  ms: number;
  status: number;
  json: { errors?: { extensions?: { limit?: string } }[] };
}

function request(url: string, localAddress: string, body?: unknown): Promise<Reply> {
  const t = performance.now();
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: data ? 'POST' : 'GET', localAddress, agent: false, headers: data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ ms: performance.now() - t, status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const median = (xs: number[]) => percentile(xs, 0.5);
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

const target = makeDemoProject(repoRoot, 'cita-fairness-');
const server = await startServer(target.root, repoRoot);
const gql = (from: string, q: string, o?: unknown) => request(`${server.url}/graphql`, from, { query: ASK, variables: { q, o } });
try {
  await gql('127.0.0.1', SHORT); // loads the model
  const healthIdle: number[] = [];
  for (let i = 0; i < 20; i++) healthIdle.push((await request(`${server.url}/healthz`, '127.0.0.1')).ms);
  const bAlone: number[] = [];
  const aAlone: number[] = [];
  for (let i = 0; i < runs; i++) {
    bAlone.push((await gql('127.0.0.2', SHORT)).ms);
    aAlone.push((await gql('127.0.0.1', long(1000 + i), { retrieveOnly: true })).ms);
  }

  const bDuring: number[] = [];
  const aheadOfB: number[] = [];
  const healthBusy: number[] = [];
  for (let run = 0; run < runs; run++) {
    const answered: string[] = [];
    let busy = true;
    const fromA = Array.from({ length: burst }, (_, i) => gql('127.0.0.1', long(run * burst + i), { retrieveOnly: true }).then(() => void answered.push('A')));
    const sampler = (async () => {
      while (busy) {
        healthBusy.push((await request(`${server.url}/healthz`, '127.0.0.3')).ms);
        await new Promise((r) => setTimeout(r, 20)); // a probe every ~20 ms, not a flood
      }
    })();
    await Promise.race(fromA);
    const before = answered.length;
    const b = await gql('127.0.0.2', SHORT);
    bDuring.push(b.ms);
    aheadOfB.push(answered.length - before);
    await Promise.all(fromA);
    busy = false;
    await sampler;
  }

  const refusals: number[] = [];
  let refused = 0;
  for (let i = 0; i < runs; i++) {
    const r = await gql('127.0.0.1', '\u3300'.repeat(2000 - i)); // distinct texts
    if (r.json.errors?.[0]?.extensions?.limit === 'tokens') refused++;
    refusals.push(r.ms);
  }

  const share = median(aAlone);
  console.log(`cita serve fairness: demo project, client A bursts ${burst} questions of ~470 tokens (retrieval only), client B asks one short question; ${runs} runs, medians`);
  console.log(`  one of A's questions alone:        ${fmt(share)}`);
  console.log(`  B's ask alone:                      ${fmt(median(bAlone))}`);
  console.log(`  B's ask during A's burst:           ${fmt(median(bDuring))} = ${(median(bDuring) / share).toFixed(1)} × one of A's (A's whole burst: ~${((burst - 1) * share / 1000).toFixed(0)} s of model time)`);
  console.log(`  A's answers between B's question and B's answer: ${aheadOfB.join(', ')} (of ${burst - 1} waiting)`);
  console.log(`  /healthz idle: p50 ${fmt(median(healthIdle))}, max ${fmt(Math.max(...healthIdle))}; during the bursts: p50 ${fmt(median(healthBusy))}, p95 ${fmt(percentile(healthBusy, 0.95))}, max ${fmt(Math.max(...healthBusy))}, ${healthBusy.filter((ms) => ms > 100).length} of ${healthBusy.length} probes over 100 ms`);
  console.log(`  a ~4,000-token question: ${refused} of ${runs} refused (token limit), answered or refused in ${fmt(median(refusals))}`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  target.cleanup();
}
