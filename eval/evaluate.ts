import path from 'node:path';
import { loadDatasets, type EvalQuestion, type Typing } from '../datasets/questions.ts';
import { loadConfig } from '../pipeline/config/load.ts';
import { UserError } from '../pipeline/errors.ts';
import type { StatsOptions } from './aggregate.ts';
import { checkPrimary, compareRuns, primaryComparisons } from './compare.ts';
import { commandLine, gitState } from './meta.ts';
import { REPORT_VERSION, type QuestionResult, type Report } from './report/types.ts';
import { collect, type RunOrder } from './interleave.ts';
import { compareLatency } from './latencyCompare.ts';
import { evaluateQuestion, summarizeRun } from './run.ts';
import { indexedPaths } from './suites/coverage.ts';
import { METRICS } from './suites/catalogue.ts';
import { codeVersion, ResultCache, resultKey } from './resultCache.ts';
import { openTargets, type EvalTarget, type TargetSpec } from './target.ts';

export interface EvaluateOptions {
  root: string;
  instance: string;
  /** Config A: overlay files and overrides on top of the instance config. */
  a: { overlays: string[]; overrides: string[] };
  /** Config B (A/B): overlays and overrides on top of A's. */
  b?: { overlays: string[]; overrides: string[] };
  /** Only these languages / datasets; the first `limit` questions of each dataset. */
  langs?: ('en' | 'es')[];
  datasets?: string[];
  /** Only questions of this split (`dev` to develop on, `test` held out); questions without one are kept. */
  split?: 'dev' | 'test';
  limit?: number;
  /** The questions as written (default), or typed without accents (datasets/questions.ts). */
  typed?: Typing;
  argv: string[];
  log: (message: string) => void;
  /** How A and B share the machine; `interleaved` by default (see eval/interleave.ts). */
  order?: RunOrder;
  /** Questions per target run first and not counted; 3 by default (fewer when there are fewer questions). */
  warmup?: number;
  onQuestion?: (label: string, done: number, total: number, r: QuestionResult) => void;
  /** Replaces the per-question evaluation (tests record the call order with it). */
  evaluateOne?: typeof evaluateQuestion;
  /**
   * Reuse results of earlier runs with the same config, index, model, dataset and code, and keep
   * this run's (eval/resultCache.ts); default true. `false` evaluates every question afresh.
   */
  cache?: boolean;
  /** Where cached results live; default `<root>/.cita/eval-cache`. */
  cacheDir?: string;
  /** Questions in flight at once (default 1; see eval/interleave.ts). */
  concurrency?: number;
  /** Timed runs per question and target, latencies the medians (default 1; see eval/interleave.ts). */
  repeat?: number;
}

export const DEFAULT_WARMUP = 3;

/** Runs config A (and B) over the instance's datasets through `ask()`, and compares B with A when there is a B. */
export async function evaluate(options: EvaluateOptions): Promise<Report> {
  const { root, instance } = options;
  const { config } = loadConfig(instance, { root, overlays: options.a.overlays, overrides: options.a.overrides });
  const datasets = loadDatasets(config.eval.datasets, root, options.typed).filter((d) => !options.datasets?.length || options.datasets.includes(d.name));
  if (options.datasets?.length && datasets.length === 0)
    throw new UserError(`no dataset named ${options.datasets.join(', ')} (configured: ${config.eval.datasets.map((d) => d.name).join(', ')})`);
  const questions: EvalQuestion[] = datasets.flatMap((d) =>
    d.questions
      .filter((q) => !options.langs?.length || options.langs.includes(q.lang))
      .filter((q) => !options.split || !q.split || q.split === options.split)
      .slice(0, options.limit ?? Infinity),
  );
  if (questions.length === 0) throw new UserError('no questions selected');
  const stats: StatsOptions = { seed: config.eval.seed, bootstrap: config.eval.bootstrap, permutations: config.eval.permutations, minEffect: config.eval.minEffect };
  const primary = config.eval.primary;
  try {
    checkPrimary(primary, METRICS, config.eval.datasets.map((d) => d.name));
  } catch (err) {
    throw new UserError((err as Error).message); // a config mistake: one line, before any question runs
  }

  const specs: TargetSpec[] = [{ label: options.b ? 'A' : instance, instance, overlays: options.a.overlays, overrides: options.a.overrides }];
  if (options.b) specs.push({ label: 'B', instance, overlays: [...options.a.overlays, ...options.b.overlays], overrides: [...options.a.overrides, ...options.b.overrides] });
  const { targets, close } = await openTargets(specs, root, options.log);
  try {
    for (const t of targets) options.log(`${t.label}: ${questions.length} questions, model ${t.embedder.id}, generator ${t.generator.id}, judge ${t.judge?.id ?? 'none'}`);
    const order = options.order ?? 'interleaved';
    const warmup = Math.min(options.warmup ?? DEFAULT_WARMUP, questions.length);
    const one = options.evaluateOne ?? evaluateQuestion;
    const concurrency = options.concurrency ?? 1;
    const repeat = options.repeat ?? 1;
    const code = options.cache === false ? undefined : codeVersion(root);
    if (options.cache !== false && code === undefined) options.log('cache: off (not a git checkout: the code behind a result cannot be identified)');
    const cache = code === undefined ? undefined : new ResultCache(options.cacheDir ?? path.join(root, '.cita', 'eval-cache'));
    const shaOf = new Map(datasets.map((d) => [d.name, d.sha256]));
    const keys = await Promise.all(
      targets.map(async (t) => {
        const index = `${t.config.store.kind}:${t.paths.store}:${await t.store.generation()}`;
        const base = { configHash: t.configHash, index, model: t.embedder.id, generator: t.generator.id, judge: t.judge?.id ?? 'none', code: code ?? '' };
        return (dataset: string) => resultKey({ ...base, datasetSha256: shaOf.get(dataset) ?? '' });
      }),
    );
    // A result this run made (a warm-up question) is evaluated again when timed: only earlier runs' are reused.
    const madeNow = new Set<QuestionResult>();
    const reused = new Set<QuestionResult>();
    const evaluateCached = async (t: EvalTarget, q: EvalQuestion, indexed?: ReadonlySet<string>): Promise<QuestionResult> => {
      const key = cache ? keys[targets.indexOf(t)]!(q.dataset) : undefined;
      const hit = key ? cache!.get(key, q.id) : undefined;
      if (hit && !madeNow.has(hit)) {
        reused.add(hit);
        return hit;
      }
      const r = await one(t, q, undefined, indexed);
      madeNow.add(r);
      if (key) cache!.put(key, r);
      return r;
    };
    const { results, seconds } = await collect(targets, questions, {
      order,
      warmup,
      concurrency,
      repeat,
      indexed: await Promise.all(targets.map((t) => indexedPaths(t.store))),
      evaluate: evaluateCached,
      onQuestion: (i, done, total, r) => options.onQuestion?.(targets[i]!.label, done, total, r),
    });
    const reusedTimed = Object.fromEntries(targets.map((t, i) => [t.label, results[i]!.filter((r) => reused.has(r)).length]));
    const anyReused = Object.values(reusedTimed).some((n) => n > 0);
    if (anyReused) options.log(`cache: reused ${targets.map((t) => `${reusedTimed[t.label]} of ${t.label}`).join(', ')} (same config, index, model, dataset and code; --no-cache to run them again)`);
    const runs = await Promise.all(targets.map((t, i) => summarizeRun(t, questions, results[i]!, seconds[i]!, stats)));
    // Reused results carry an earlier run's latency, and concurrent questions each other's: neither compares.
    const timed = !anyReused && concurrency === 1;
    if (runs.length === 2 && !timed) options.log(`latency: not compared (${anyReused ? 'results reused from the cache' : `${concurrency} questions at once`})`);
    const latencyComparison = runs.length === 2 && timed ? compareLatency(runs[0]!.questions, runs[1]!.questions, stats, { order, warmup }) : undefined;
    return {
      version: REPORT_VERSION,
      kind: runs.length === 2 ? 'ab' : 'run',
      meta: {
        command: commandLine(options.argv),
        createdAt: new Date().toISOString(),
        git: gitState(root),
        instance,
        datasets: datasets.map((d) => ({ name: d.name, path: d.path, sha256: d.sha256, records: d.questions.length, ...(d.typed ? { typed: d.typed } : {}) })),
        node: process.version,
        stats: { seed: stats.seed, bootstrap: stats.bootstrap, permutations: stats.permutations, primary, minEffect: config.eval.minEffect },
        timing: { order, warmup, ...(concurrency > 1 ? { concurrency } : {}), ...(repeat > 1 ? { repeat } : {}) },
        ...(anyReused ? { reused: reusedTimed } : {}),
      },
      metrics: METRICS,
      runs,
      ...(runs.length === 2
        ? {
            comparisons: compareRuns(runs[0]!.questions, runs[1]!.questions, METRICS, stats),
            primary: primaryComparisons(runs[0]!.questions, runs[1]!.questions, METRICS, primary, stats),
          }
        : {}),
      ...(latencyComparison ? { latencyComparison } : {}),
    };
  } finally {
    await close();
  }
}
