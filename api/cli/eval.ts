import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Typing } from '../../datasets/questions.ts';
import { findRoot } from '../../pipeline/config/load.ts';
import { collect } from './options.ts';

function limit(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function lang(v: string, prev: string[]): string[] {
  if (v !== 'en' && v !== 'es') throw new InvalidArgumentError('expected en or es');
  return [...prev, v];
}

function order(v: string): 'interleaved' | 'sequential' {
  if (v !== 'interleaved' && v !== 'sequential') throw new InvalidArgumentError('expected interleaved or sequential');
  return v;
}

function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

function positive(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new InvalidArgumentError('expected a whole number from 1 to 16');
  return n;
}

function split(v: string): 'dev' | 'test' {
  if (v !== 'dev' && v !== 'test') throw new InvalidArgumentError('expected dev or test');
  return v;
}

function typed(v: string): Typing {
  if (v !== 'as-written' && v !== 'unaccented') throw new InvalidArgumentError('expected as-written or unaccented');
  return v;
}

interface EvalOptions {
  config: string[];
  vs: string[];
  set: string[];
  baseSet: string[];
  lang: string[];
  dataset: string[];
  split?: 'dev' | 'test';
  limit?: number;
  typed: Typing;
  order: 'interleaved' | 'sequential';
  warmup?: number;
  out: string;
  name?: string;
  trec?: string | true;
  cache: boolean;
  concurrency: number;
  repeat: number;
}

/** `cita eval`: one configuration, or an A/B with paired tests; reports in JSON, Markdown and HTML. */
export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('evaluate the instance on its datasets (retrieval, routing, fusion, truncation, citations, faithfulness, latency); with --vs or --set, an A/B with paired tests')
    .argument('<instance>', 'instance name')
    .option('--config <file>', 'config A: a partial YAML merged over the instance config (repeatable)', collect, [])
    .option('--vs <file>', 'config B: a partial YAML merged over config A (repeatable); makes this an A/B', collect, [])
    .option('--set <key=value>', 'config B: override a key of config A (repeatable), e.g. fusion.method=rrf; makes this an A/B', collect, [])
    .option('--base-set <key=value>', 'override a key in both A and B (repeatable)', collect, [])
    .option('--lang <en|es>', 'only questions in this language (repeatable)', lang, [])
    .option('--dataset <name>', 'only this dataset of eval.datasets (repeatable)', collect, [])
    .option('--split <dev|test>', 'only questions of this split (datasets that mark one); others are kept', split)
    .option('--limit <n>', 'only the first n questions of each dataset', limit)
    .option('--typed <as-written|unaccented>', 'the questions as written, or typed without accents (no á é í ó ú ü ¿ ¡; ñ kept), as on a keyboard without them', typed, 'as-written')
    .option('--order <interleaved|sequential>', 'A/B: per question A and B back to back, alternating which goes first (default), or all of A then all of B', order, 'interleaved')
    .option('--warmup <n>', 'questions run per config before the timed ones, not counted (default 3)', count)
    .option('--out <dir>', 'where the reports go', 'reports')
    .option('--name <name>', 'report file name without extension (default: eval-<instance>-<time> or ab-<instance>-<time>)')
    .option('--no-cache', 'evaluate every question afresh: no results reused from earlier runs with the same config, index, model, dataset and code (.cita/eval-cache), none kept')
    .option('--concurrency <n>', 'questions in flight at once (their latencies then overlap and are not compared)', positive, 1)
    .option('--repeat <n>', 'time each question n times per config (A and B alternating who goes first); latencies are the medians', positive, 1)
    .option('--trec [dir]', 'also write each run as a TREC run file and qrels (<name>.<label>.run / .qrels) into dir (default: beside the report)')
    .action(async (instance: string, opts: EvalOptions) => {
      const { evaluate } = await import('../../eval/evaluate.ts');
      const { writeReport } = await import('../../eval/report/write.ts');
      const { summaryLines } = await import('../../eval/summary.ts');
      const root = findRoot();
      const ab = opts.vs.length > 0 || opts.set.length > 0;
      const report = await evaluate({
        root,
        instance,
        a: { overlays: opts.config, overrides: opts.baseSet },
        ...(ab ? { b: { overlays: opts.vs, overrides: opts.set } } : {}),
        langs: opts.lang as ('en' | 'es')[],
        datasets: opts.dataset,
        ...(opts.split ? { split: opts.split } : {}),
        limit: opts.limit,
        typed: opts.typed,
        order: opts.order,
        ...(opts.warmup !== undefined ? { warmup: opts.warmup } : {}),
        cache: opts.cache,
        concurrency: opts.concurrency,
        repeat: opts.repeat,
        argv: ['cita', ...process.argv.slice(2)],
        log: (m) => process.stderr.write(`${m}\n`),
        onQuestion: (label, done, total, r) =>
          process.stderr.write(`[${label} ${done}/${total}] ${r.id} ${(r.latency.total! / 1000).toFixed(1)} s${r.error ? ` ERROR ${r.error}` : ''}\n`),
      });
      const stamp = report.meta.createdAt.replace(/[:.]/g, '-').slice(0, 19);
      const name = opts.name ?? `${ab ? 'ab' : 'eval'}-${instance}-${stamp}`;
      const files = writeReport(report, path.resolve(root, opts.out), name);
      process.stdout.write(summaryLines(report).join('\n') + '\n');
      process.stdout.write(`reports: ${files.json}\n         ${files.md}\n         ${files.html}\n`);
      if (opts.trec) {
        const { writeTrec } = await import('../../eval/trec/export.ts');
        const trec = writeTrec(report, path.resolve(root, opts.trec === true ? opts.out : opts.trec), name);
        process.stdout.write(`trec:    ${trec.join('\n         ')}\n`);
      }
    });
}
