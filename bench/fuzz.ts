/**
 * A fuzz pass over cita's two ways in: random and mutated GraphQL requests against a real `cita serve`,
 * and random argument lists against the CLI, both drawn with fast-check (bench/fuzz/*Cases.ts) over a
 * small indexed project with the real model. Prints, per surface, the cases run and the faults found:
 *
 *   crash   the server died or answered 5xx / INTERNAL_SERVER_ERROR; the CLI exited with a code other
 *           than 0/1/2 or an exception escaped main()
 *   hang    no answer within the deadline: 2 s; 10 s for a CLI run that runs the model (ask, search,
 *           index, eval: the CLI, unlike the server, takes questions longer than the model window,
 *           and one such question is seconds of embedding on a busy 2-core machine)
 *   stack   a stack trace in a response or in the CLI's output (CITA_DEBUG=1, so an unexpected error
 *           prints one and a user error does not)
 *   leak    the temp project's absolute path in a GraphQL response (the server must not reveal its files)
 *
 *   node --import tsx bench/fuzz.ts [--graphql 3000] [--cli 1500] [--seed 1] [--show 5]
 *
 * Exit code 1 if anything was found; the first --show cases of each kind are printed to replay.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { findRoot } from '../pipeline/config/load.ts';
import { makeDemoProject, startServer, type DemoProject } from './support/demo.ts';
import { cliCase, type CliCase } from './fuzz/cliCases.ts';
import { httpCase, type HttpCase } from './fuzz/graphqlCases.ts';

const { values: opts } = parseArgs({
  options: { graphql: { type: 'string', default: '3000' }, cli: { type: 'string', default: '1500' }, seed: { type: 'string', default: '1' }, show: { type: 'string', default: '5' } },
});
const count = (name: string, v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not ${v}`);
  return n;
};
const nGraphql = count('graphql', opts.graphql!);
const nCli = count('cli', opts.cli!);
const seed = count('seed', opts.seed!);
const show = count('show', opts.show!);
const repoRoot = findRoot(path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const STACK = /\n\s+at \S|\bat \S+ \(\S+:\d+:\d+\)|\.(?:ts|js|mjs):\d+:\d+/;
const DEADLINE_MS = 2000;

type Kind = 'crash' | 'hang' | 'stack' | 'leak';
interface Tally {
  cases: number;
  byKind: Record<Kind, number>;
  examples: Record<Kind, string[]>;
  slowestMs: number;
  /** Slowest answer per GraphQL case kind or CLI command. */
  slowestBy: Map<string, number>;
  statuses: Map<string, number>;
}
const tally = (): Tally => ({ cases: 0, byKind: { crash: 0, hang: 0, stack: 0, leak: 0 }, examples: { crash: [], hang: [], stack: [], leak: [] }, slowestMs: 0, slowestBy: new Map(), statuses: new Map() });
function found(t: Tally, kind: Kind, example: string): void {
  t.byKind[kind]++;
  if (t.examples[kind].length < show) t.examples[kind].push(example.length > 600 ? `${example.slice(0, 600)}…` : example);
}
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
function timed(t: Tally, key: string, ms: number): void {
  t.slowestMs = Math.max(t.slowestMs, ms);
  t.slowestBy.set(key, Math.max(t.slowestBy.get(key) ?? 0, ms));
}

// ---------------------------------------------------------------- GraphQL against `cita serve`

async function send(url: string, c: HttpCase): Promise<{ status: number; text: string; ms: number } | { hang: true; ms: number }> {
  const t = performance.now();
  try {
    const res = await fetch(`${url}/graphql${c.search ?? ''}`, { method: c.method, headers: c.contentType ? { 'content-type': c.contentType } : {}, body: c.body, signal: AbortSignal.timeout(DEADLINE_MS) });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - t };
  } catch (e) {
    if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return { hang: true, ms: performance.now() - t };
    throw e;
  }
}

async function fuzzGraphql(project: DemoProject, t: Tally): Promise<void> {
  const server = await startServer(project.root, repoRoot, { CITA_API_KEY: 'fuzz-key' });
  let exited = false;
  server.child.on('exit', () => (exited = true));
  try {
    const intro = (await (await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: getIntrospectionQuery() }) })).json()) as { data: IntrospectionQuery };
    const schema: GraphQLSchema = buildClientSchema(intro.data);
    const seeds = [
      'query { instances { name chunks } }',
      'query($i: String!, $q: String!) { ask(instance: $i, question: $q) { language answer { text citations { marker path url } } } }',
      'query { ask(instance: "demo", question: "¿Cómo omito un test en Windows?") { answer { text } route { reasons } } }',
      'query { search(instance: "demo", query: "parse_config") { hits { path score } } }',
    ];
    const cases = fc.sample(fc.gen().map((g) => httpCase(g, schema, seeds)), { numRuns: nGraphql, seed });
    for (const [i, c] of cases.entries()) {
      const replay = `${c.kind} ${c.method} ${c.search ?? ''} ${c.contentType ?? ''} ${c.body ?? ''}`;
      const r = await send(server.url, c);
      t.cases++;
      timed(t, c.kind, r.ms);
      if ('hang' in r) {
        found(t, 'hang', replay);
        continue;
      }
      bump(t.statuses, String(r.status));
      if (r.status >= 500 || r.text.includes('INTERNAL_SERVER_ERROR')) found(t, 'crash', `${r.status} ${r.text.slice(0, 300)} ← ${replay}`);
      if (STACK.test(r.text)) found(t, 'stack', `${r.text.slice(0, 300)} ← ${replay}`);
      if (r.text.includes(project.root)) found(t, 'leak', `${r.text.slice(0, 300)} ← ${replay}`);
      if (exited) {
        found(t, 'crash', `the server exited after: ${replay}\n${server.stderr().slice(-1000)}`);
        break;
      }
      if (i % 100 === 99) {
        const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(DEADLINE_MS) }).catch(() => undefined);
        if (!health?.ok) found(t, 'hang', `/healthz did not answer after case ${i + 1}`);
        process.stderr.write(`  graphql ${i + 1}/${cases.length}\r`);
      }
    }
    if (STACK.test(server.stderr())) found(t, 'stack', `server stderr: ${server.stderr().slice(-600)}`);
  } finally {
    server.child.kill('SIGTERM');
    if (!exited) await new Promise((r) => server.child.once('exit', r));
  }
}

// ---------------------------------------------------------------- the CLI, in one worker process

interface WorkerReply {
  id: number;
  code?: number;
  stdout?: string;
  stderr?: string;
  crash?: string;
}

function startWorker(project: DemoProject): Promise<ChildProcess> {
  const child = fork(path.join(repoRoot, 'bench/fuzz/cliWorker.mjs'), [], { cwd: project.root, env: { ...process.env, CITA_ROOT: project.root, CITA_DEBUG: '1' }, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the CLI fuzz worker exited with ${code}`)));
  });
}

function run(worker: ChildProcess, id: number, c: CliCase, deadline: number): Promise<WorkerReply | 'hang' | 'died'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('hang'), deadline);
    const onMessage = (m: WorkerReply) => m.id === id && finish(m);
    const onExit = () => finish('died');
    function finish(r: WorkerReply | 'hang' | 'died') {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(r);
    }
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.send({ id, argv: c.argv });
  });
}

async function fuzzCli(project: DemoProject, t: Tally): Promise<void> {
  const configFile = path.join(project.root, 'config/instances/demo.yaml');
  let worker = await startWorker(project);
  // The first ask loads the model; it is not a case.
  await run(worker, -1, { argv: ['ask', 'demo', 'warm up'], heavy: true }, 60_000);
  const cases = fc.sample(fc.gen().map((g) => cliCase(g)), { numRuns: nCli, seed });
  for (const [i, c] of cases.entries()) {
    // A case may have rewritten the demo config (`init --force --name demo`): every case starts from the same one.
    fs.writeFileSync(configFile, project.config);
    const replay = `cita ${c.argv.map((a) => JSON.stringify(a)).join(' ')}`;
    const started = performance.now();
    const r = await run(worker, i, c, c.heavy ? 5 * DEADLINE_MS : DEADLINE_MS);
    const ms = performance.now() - started;
    t.cases++;
    timed(t, c.argv[0] || '(none)', ms);
    if (r === 'hang' || r === 'died' || r.crash) {
      found(t, r === 'hang' ? 'hang' : 'crash', `${replay}${typeof r === 'object' ? `\n${r.crash}` : ''}`);
      worker.kill('SIGKILL');
      worker = await startWorker(project);
      continue;
    }
    bump(t.statuses, `exit ${r.code}`);
    if (![0, 1, 2].includes(r.code!)) found(t, 'crash', `exit ${r.code}: ${replay}\n${r.stderr}`);
    if (STACK.test(`${r.stdout}\n${r.stderr}`)) found(t, 'stack', `${replay}\n${r.stderr!.slice(0, 400)}`);
    if (i % 50 === 49) process.stderr.write(`  cli ${i + 1}/${cases.length}\r`);
  }
  worker.kill('SIGTERM');
}

function print(name: string, t: Tally): void {
  const faults = Object.values(t.byKind).reduce((a, b) => a + b, 0);
  const outcomes = [...t.statuses].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`).join(', ');
  console.log(`${name}: ${t.cases} cases; crashes ${t.byKind.crash}, hangs ${t.byKind.hang}, stack traces ${t.byKind.stack}, leaked paths ${t.byKind.leak}; slowest ${t.slowestMs.toFixed(0)} ms; outcomes ${outcomes}`);
  const slowest = [...t.slowestBy].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
  console.log(`  slowest answer (ms) by ${name === 'cli' ? 'command' : 'kind'}: ${slowest}`);
  if (!faults) return;
  for (const kind of Object.keys(t.examples) as Kind[]) for (const e of t.examples[kind]) console.log(`  [${kind}] ${e}`);
}

const project = makeDemoProject(repoRoot, 'cita-fuzz-');
const graphql = tally();
const cli = tally();
try {
  console.log(`cita fuzz: seed ${seed}, ${nGraphql} GraphQL requests, ${nCli} CLI argument lists (project ${project.root})`);
  if (nGraphql) await fuzzGraphql(project, graphql);
  if (nCli) await fuzzCli(project, cli);
  print('graphql', graphql);
  print('cli', cli);
  const faults = [graphql, cli].reduce((n, t) => n + Object.values(t.byKind).reduce((a, b) => a + b, 0), 0);
  process.exitCode = faults ? 1 : 0;
} finally {
  project.cleanup();
}
