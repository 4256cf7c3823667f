import type { EvalQuestion } from '../datasets/questions.ts';
import type { QuestionResult } from './report/types.ts';
import { median } from './stats/median.ts';
import type { EvalTarget } from './target.ts';

/**
 * How A and B share the machine. `interleaved`: per question, both targets back to back, the one
 * going first alternating (AB, BA, AB, …), so drift over the run (thermal, other jobs, page cache)
 * falls on both alike; `sequential`: all of A, then all of B (the old behaviour, for comparison).
 */
export type RunOrder = 'interleaved' | 'sequential';

/**
 * The schedule as [question index, target index] pairs. Interleaved: question i runs target order
 * rotated by i, so with two targets A goes first on even questions and B on odd ones.
 */
export function schedule(questions: number, targets: number, order: RunOrder): [number, number][] {
  const out: [number, number][] = [];
  if (order === 'sequential') {
    for (let t = 0; t < targets; t++) for (let q = 0; q < questions; q++) out.push([q, t]);
    return out;
  }
  for (let q = 0; q < questions; q++) for (let k = 0; k < targets; k++) out.push([q, (k + q) % targets]);
  return out;
}

export type EvaluateOne = (target: EvalTarget, q: EvalQuestion, indexed?: ReadonlySet<string>) => Promise<QuestionResult>;

export interface CollectOptions {
  order: RunOrder;
  /** Questions run per target before the timed ones, not counted (loads the model, JITs, warms the store's pages); then query caches are emptied. */
  warmup: number;
  /** The file paths each target's index holds (gold reachability). */
  indexed: (ReadonlySet<string> | undefined)[];
  evaluate: EvaluateOne;
  onQuestion?: (target: number, done: number, total: number, r: QuestionResult) => void;
  /**
   * Questions in flight at once (default 1). Each question still runs its targets back to back in
   * the scheduled order; with more than one in flight, questions overlap (the translator's process,
   * the model and the store wait on each other less) and their latencies are no longer those of a
   * question alone.
   */
  concurrency?: number;
  /**
   * Times each timed question runs per target (default 1), A and B alternating who goes first
   * on every round; its latencies are the medians over the runs (`medianLatencies`).
   */
  repeat?: number;
}

/**
 * One question's runs as one result: the first run's answer and metrics (they do not change from
 * run to run: the pipeline is deterministic), and for each latency stage the median over the runs
 * that timed it. Pure.
 */
export function medianLatencies(runs: readonly QuestionResult[]): QuestionResult {
  const first = runs[0]!;
  if (runs.length === 1) return first;
  const stages = [...new Set(runs.flatMap((r) => Object.keys(r.latency)))];
  const latency = Object.fromEntries(stages.map((s) => [s, median(runs.flatMap((r) => (r.latency[s] === undefined ? [] : [r.latency[s]!])))]));
  const metrics = first.metrics['latency.total'] === undefined ? first.metrics : { ...first.metrics, 'latency.total': latency.total ?? first.metrics['latency.total'] };
  return { ...first, latency, metrics, repeats: runs.length };
}

/** Per target, its results in question order, and the seconds spent in its own questions. */
export interface Collected {
  results: QuestionResult[][];
  seconds: number[];
}

/** Runs every question on every target in the chosen order, after a warm-up each target pays alone. */
export async function collect(targets: EvalTarget[], questions: EvalQuestion[], options: CollectOptions): Promise<Collected> {
  const warm = Math.min(options.warmup, questions.length);
  for (const [q, t] of schedule(warm, targets.length, options.order)) await options.evaluate(targets[t]!, questions[q]!, options.indexed[t]);
  // The warm-up is for the process, not for the questions: a timed question must not find its vector or translation cached.
  for (const t of targets) t.resetCaches();
  const results: QuestionResult[][] = targets.map(() => new Array<QuestionResult>(questions.length));
  const seconds = targets.map(() => 0);
  const done = targets.map(() => 0);
  // Units of work in schedule order: interleaved, a question with its targets back to back;
  // sequential, one (question, target) at a time, so all of A still comes before all of B.
  const queue: [number, number[]][] = [];
  for (const [q, t] of schedule(questions.length, targets.length, options.order)) {
    const last = queue.at(-1);
    if (options.order === 'interleaved' && last?.[0] === q) last[1].push(t);
    else queue.push([q, [t]]);
  }
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [q, ts] = next;
      const runs = new Map<number, QuestionResult[]>(ts.map((t) => [t, []]));
      for (let round = 0; round < repeat; round++) {
        // Odd rounds reverse the order, so over the rounds each target goes first as often.
        for (const t of round % 2 === 0 ? ts : [...ts].reverse()) {
          const started = performance.now();
          runs.get(t)!.push(await options.evaluate(targets[t]!, questions[q]!, options.indexed[t]));
          seconds[t]! += (performance.now() - started) / 1000;
        }
      }
      for (const t of ts) {
        const r = medianLatencies(runs.get(t)!);
        results[t]![q] = r;
        options.onQuestion?.(t, ++done[t]!, questions.length, r);
      }
    }
  };
  const repeat = Math.max(1, options.repeat ?? 1);
  const n = Math.max(1, Math.min(options.concurrency ?? 1, questions.length));
  await Promise.all(Array.from({ length: n }, worker));
  return { results, seconds };
}
