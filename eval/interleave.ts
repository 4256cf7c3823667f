import type { EvalQuestion } from '../datasets/questions.ts';
import type { QuestionResult } from './report/types.ts';
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
  for (const [q, t] of schedule(questions.length, targets.length, options.order)) {
    const started = performance.now();
    const r = await options.evaluate(targets[t]!, questions[q]!, options.indexed[t]);
    seconds[t]! += (performance.now() - started) / 1000;
    results[t]![q] = r;
    options.onQuestion?.(t, ++done[t]!, questions.length, r);
  }
  return { results, seconds };
}
