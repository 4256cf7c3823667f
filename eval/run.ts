import type { EvalQuestion } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import type { Context, Generator } from '../pipeline/answer/types.ts';
import { withoutFileRecord } from '../pipeline/index/fileManifest.ts';
import type { Translation } from '../pipeline/retrieval/crossLingual.ts';
import { modelTranslatorFor } from '../pipeline/text/modelTranslate.ts';
import { COLLECTIONS, type Collection } from '../pipeline/types.ts';
import { aggregate, type StatsOptions } from './aggregate.ts';
import { languageGap } from './languageGap.ts';
import { contextFingerprint, describeContextDifference, JudgeContextMismatch, sentFingerprint } from './judge/fingerprint.ts';
import { calibrateJudge } from './judge/calibration.ts';
import type { Judge } from './judge/types.ts';
import { percentile } from './metrics/percentile.ts';
import type { FusionRow, LatencyRow, MetricValues, QuestionResult, RunReport } from './report/types.ts';
import { METRIC_NAMES } from './suites/catalogue.ts';
import { answerMetrics } from './suites/answer.ts';
import { citationMetrics } from './suites/citations.ts';
import { coverageMetrics, coverageRows, goldReachability, indexedPaths, queryTokens } from './suites/coverage.ts';
import { contextSlots, fusionMetrics, goldCollections, isEvenQuota } from './suites/fusion.ts';
import { contextFiles, retrievalMetrics } from './suites/retrieval.ts';
import { routingMetrics } from './suites/routing.ts';
import { truncationSuite } from './suites/truncation.ts';
import { collect } from './interleave.ts';
import type { EvalTarget } from './target.ts';

/** Passes every call through and keeps the context the generator was given, to hold the judge to it. */
class WitnessGenerator implements Generator {
  seen: Context | undefined;
  constructor(private readonly inner: Generator) {}
  get id(): string {
    return this.inner.id;
  }
  generate(question: string, context: Context) {
    this.seen = context;
    return this.inner.generate(question, context);
  }
}

/**
 * Judges an answer and proves the judge saw the generator's exact context (lesson 5); a difference (a
 * block missing, one character cut) is an error that stops the run, since every faithfulness figure
 * after it would be meaningless. The judge's argument must fingerprint as the generator's context;
 * for a model judge, the harness also reads the messages recorded at its model's provider and
 * requires the generator's context, rendered as the generator's prompt renders it, in them
 * (`renderedFingerprint` is then that rendering's hash, computed here, not by the judge).
 */
export async function judgeAgainst(judge: Judge, generatorContext: Context, question: string, judgeContext: Context, answer: Parameters<Judge['judge']>[2]) {
  judge.transcript?.reset();
  const judgement = await judge.judge(question, judgeContext, answer);
  if (judgement.contextFingerprint !== contextFingerprint(generatorContext)) throw new JudgeContextMismatch(describeContextDifference(generatorContext, judgeContext));
  const sent = judge.transcript?.last();
  if (!sent) return { judgement };
  const renderedFingerprint = sentFingerprint(sent, generatorContext);
  if (renderedFingerprint === null)
    throw new JudgeContextMismatch(`the messages sent to the judge's model (${sent.reduce((n, m) => n + m.content.length, 0)} characters) do not hold the generator's rendered context; ${describeContextDifference(generatorContext, judgeContext)}`);
  return { judgement, renderedFingerprint };
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Runs one question through `ask()` (the same path as `cita ask`) and every per-question suite.
 * `indexed`: the file paths the index holds (read once per run), to flag gold no retrieval can reach.
 */
export async function evaluateQuestion(
  target: EvalTarget,
  q: EvalQuestion,
  judgeContext: (c: Context) => Context = (c) => c,
  indexed?: ReadonlySet<string>,
): Promise<QuestionResult> {
  const witness = new WitnessGenerator(target.generator);
  const reach = indexed ? goldReachability(q.gold.files, indexed) : undefined;
  const query = { tokens: queryTokens(target.embedder, q.question), window: target.embedder.window };
  const coverage = coverageMetrics(q.gold.files, reach?.reachable ?? q.gold.files, query.tokens, query.window);
  if (!reach) coverage['gold.reachable'] = null;
  const base = {
    id: q.id,
    dataset: q.dataset,
    lang: q.lang,
    kind: q.kind,
    expectedSource: q.gold.source,
    question: cut(q.question, 300),
    gold: { files: q.gold.files, issues: q.gold.issues, ...(reach ? { reachable: reach.reachable } : {}) },
    query,
    ...(q.pair ? { pair: q.pair } : {}),
    ...(q.split ? { split: q.split } : {}),
    ...(q.gold.answerable === false ? { answerable: false as const } : {}),
  };
  const started = performance.now();
  let result;
  try {
    result = await ask(
      { config: target.config, store: target.store, embedder: target.embedder, generator: witness, checkout: target.paths.checkout, ...(target.translator ? { translator: target.translator } : {}) },
      q.question,
    );
  } catch (err) {
    const empty = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
    return {
      ...base,
      metrics: { ...Object.fromEntries(METRIC_NAMES.map((m) => [m, null])), ...coverage },
      route: { top: q.gold.source, weights: empty },
      slots: empty,
      ranked: [],
      contextFiles: [],
      latency: { total: performance.now() - started },
      error: (err as Error).message,
    };
  }
  const latency: Record<string, number> = { ...result.timings };
  let faithfulness: QuestionResult['faithfulness'];
  const metrics: MetricValues = {};
  if (target.judge && result.answer && witness.seen) {
    const t = performance.now();
    const { judgement: j, renderedFingerprint } = await judgeAgainst(target.judge, witness.seen, q.question, judgeContext(result.context), result.answer);
    latency.judge = performance.now() - t;
    const supported = j.sentences.filter((s) => s.supported).length;
    faithfulness = {
      judge: j.judge,
      sentences: j.sentences.length,
      supported,
      contextFingerprint: j.contextFingerprint,
      ...(renderedFingerprint ? { renderedFingerprint } : {}),
      verdicts: j.sentences.map((v) => ({ sentence: cut(v.sentence, 300), markers: v.markers, supported: v.supported, reason: v.reason })),
    };
    metrics.faithfulness = j.sentences.length ? supported / j.sentences.length : null;
  } else metrics.faithfulness = null;
  latency.total = performance.now() - started;
  const slots = contextSlots(result);
  Object.assign(metrics, retrievalMetrics(q, result), routingMetrics(q, result), fusionMetrics(q, slots), citationMetrics(result.answer), answerMetrics(q, result.answer), coverage, { 'latency.total': latency.total });
  const a = result.answer;
  return {
    ...base,
    metrics,
    route: { top: result.route.top, weights: result.route.weights },
    ...(result.translation ? { translation: reportedTranslation(result.translation) } : {}),
    slots,
    ranked: result.ranking.files,
    contextFiles: contextFiles(result),
    ...(a
      ? {
          answer: {
            generator: a.generator,
            text: cut(a.text, 2000),
            markers: new Set(a.citations.map((c) => c.marker)).size + new Set(a.invalid.map((i) => i.marker)).size,
            citations: a.citations.length,
            invalid: a.invalid.length,
            unsupported: a.unsupported.length,
            noAnswer: Boolean(a.noAnswer),
            files: [...new Set(a.citations.filter((c) => c.issue === undefined).map((c) => c.path))],
          },
        }
      : {}),
    ...(faithfulness ? { faithfulness } : {}),
    latency,
  };
}

export function latencyRows(questions: QuestionResult[]): LatencyRow[] {
  const stages = [...new Set(questions.flatMap((q) => Object.keys(q.latency)))];
  const order = ['lookup', 'translate', 'embed', 'retrieve', 'generate', 'verify', 'judge', 'total'];
  stages.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return stages.map((stage) => {
    const xs = questions.map((q) => q.latency[stage]).filter((v): v is number => v !== undefined);
    return { stage, n: xs.length, p50: percentile(xs, 0.5), p95: percentile(xs, 0.95), mean: xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length) };
  });
}

export function fusionRows(questions: QuestionResult[], goldOf: (id: string) => Set<Collection>): FusionRow[] {
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  return kinds.map((kind) => {
    const sel = questions.filter((q) => q.kind === kind && !q.error);
    const total = sel.reduce((s, q) => s + COLLECTIONS.reduce((t, c) => t + q.slots[c], 0), 0);
    const wasted = sel.reduce((s, q) => s + COLLECTIONS.filter((c) => !goldOf(q.id).has(c)).reduce((t, c) => t + q.slots[c], 0), 0);
    return {
      kind,
      questions: sel.length,
      meanSlots: Object.fromEntries(COLLECTIONS.map((c) => [c, sel.reduce((s, q) => s + q.slots[c], 0) / Math.max(1, sel.length)])) as Record<Collection, number>,
      evenQuota: sel.filter((q) => isEvenQuota(q.slots)).length / Math.max(1, sel.length),
      wastedSlots: total ? wasted / total : 0,
    };
  });
}

function gapOf(results: QuestionResult[], stats: StatsOptions): { languageGap?: RunReport['languageGap'] } {
  const rows = languageGap(results, stats);
  return rows.length ? { languageGap: rows } : {};
}

export interface RunOptions {
  stats: StatsOptions;
  onQuestion?: (done: number, total: number, result: QuestionResult) => void;
}

/** Evaluates one configuration over the questions: per-question results, aggregates with CIs, and the index-level suites. */
export async function runTarget(target: EvalTarget, questions: EvalQuestion[], options: RunOptions & { warmup?: number }): Promise<RunReport> {
  const { results, seconds } = await collect([target], questions, {
    order: 'sequential',
    warmup: options.warmup ?? 0,
    indexed: [await indexedPaths(target.store)],
    evaluate: (t, q, indexed) => evaluateQuestion(t, q, undefined, indexed),
    onQuestion: (_t, done, total, r) => options.onQuestion?.(done, total, r),
  });
  return summarizeRun(target, questions, results[0]!, seconds[0]!, options.stats);
}

/** One target's run report from its per-question results: aggregates with CIs and the index-level suites. */
export async function summarizeRun(target: EvalTarget, questions: EvalQuestion[], results: QuestionResult[], seconds: number, stats: StatsOptions): Promise<RunReport> {
  // Once per run, after the timed questions: the judge's own accuracy, shown in the report header.
  const judgeCalibration = target.judge ? await calibrateJudge(target.judge) : undefined;
  const gold = new Map(questions.map((q) => [q.id, goldCollections(q)]));
  const chunks = Object.fromEntries(await Promise.all(COLLECTIONS.map(async (c) => [c, await target.store.count(c)] as const))) as Record<Collection, number>;
  return {
    label: target.label,
    configSource: target.configSource,
    configHash: target.configHash,
    config: target.config,
    model: { id: target.embedder.id, dims: target.embedder.dims },
    generator: target.generator.id,
    judge: target.judge?.id ?? 'none',
    ...translatorOf(target),
    ...(judgeCalibration ? { judgeCalibration } : {}),
    // Without the per-file chunk record (hundreds of KB): the report says what the index is, not how it was made.
    index: { chunks, meta: withoutFileRecord(await target.store.meta()) },
    questions: results,
    aggregates: aggregate(results, METRIC_NAMES, stats),
    truncation: await truncationSuite(target.store, target.embedder.window),
    coverage: coverageRows(results),
    fusion: fusionRows(results, (id) => gold.get(id) ?? new Set()),
    latency: latencyRows(results),
    seconds,
    ...gapOf(results, stats),
  };
}

/** A translation as the report keeps it (`QuestionResult.translation`). */
function reportedTranslation(t: Translation): NonNullable<QuestionResult['translation']> {
  return {
    ...(t.accents ? { accented: t.accents.text } : {}),
    ...(t.text !== undefined ? { text: t.text } : {}),
    ...(t.alternatives?.length ? { alternatives: t.alternatives } : {}),
    ...(t.rendering?.text !== undefined ? { rendering: t.rendering.text } : {}),
    ...(t.error !== undefined ? { error: t.error } : {}),
    ...(t.rendering?.error !== undefined ? { renderingError: t.rendering.error } : {}),
  };
}

/**
 * The language model translator, when it ran in this run: its id and the llama.cpp CPU backend that rendered
 * (`RunReport.translator`). The translator `ask` used is the process's for the config (`modelTranslatorFor`, as
 * `translateQuestion` takes it); one never opened (no question in another language, `model: none`) is not reported.
 */
function translatorOf(target: EvalTarget): Pick<RunReport, 'translator'> {
  if (target.config.retrieval.crossLingual.model === 'none') return {};
  const t = modelTranslatorFor(target.config.languages.modelTranslator);
  return t.backend !== undefined ? { translator: { id: t.id, backend: t.backend } } : {};
}
