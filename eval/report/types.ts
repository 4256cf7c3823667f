import type { Collection } from '../../pipeline/types.ts';

/**
 * The evaluation report: one JSON document holds everything needed to reproduce and to compare a
 * figure (command, config hash, model checksum, dataset checksums, git commit) and every
 * per-question result; the Markdown and HTML pages are renderings of it, nothing more.
 */

export const REPORT_VERSION = 1;

export type Lang = 'en' | 'es';

/** How a metric reads: `share` in [0, 1] (shown as %), `ms` a duration. */
export interface MetricInfo {
  name: string;
  label: string;
  /** Which way is better; decides whether a significant difference is a gain or a regression. */
  direction: 'higher' | 'lower';
  unit: 'share' | 'ms' | 'count';
  /** One line: what it measures and over which questions it is defined. */
  description: string;
  /**
   * `answers`: defined only on the answers a side gave (faithfulness, citation checks). A/B then
   * compares each side over its own answers, unpaired, with both answered rates beside: pairing over
   * the questions both answered would hide a side that answers more, or less faithfully.
   */
  over?: 'answers';
}

/** Per-question values; `null` where the metric does not apply (e.g. no gold issue, no answer). */
export type MetricValues = Record<string, number | null>;

export interface QuestionResult {
  id: string;
  dataset: string;
  lang: Lang;
  kind: string;
  /** The collection that should answer it (the routing target). */
  expectedSource: Collection;
  /** The question, cut to 300 characters for the report. */
  question: string;
  /** `reachable`: the gold files the index holds (a gold file not indexed can never be retrieved). */
  gold: { files: string[]; issues: number[]; reachable?: string[] };
  /** The question as a query: its tokens as the model counts them, and the model window it must fit. */
  query?: { tokens: number; window: number };
  /** The same question in the other language has the same pair id (the language-gap test pairs them). */
  pair?: string;
  split?: 'dev' | 'test';
  /** false: the sources hold no answer; the right answer is to abstain. */
  answerable?: false;
  metrics: MetricValues;
  route: { top: Collection; weights: Record<Collection, number> };
  /**
   * A question asked in another language than the corpus: what it was searched with (the question with the accents
   * it was typed without put back, the translator's text, the senses beside it, the language model's rendering), so that two runs whose rankings differ can be told apart by their
   * translations (the rendering is the one step whose arithmetic depends on the CPU). Absent in reports made before it.
   */
  translation?: { accented?: string; text?: string; alternatives?: string[]; rendering?: string; error?: string; renderingError?: string };
  /** Context blocks per collection after fusion (lookups included). */
  slots: Record<Collection, number>;
  /** The distinct files of `ask()`'s ranking (RANK_DEPTH chunks deep), in order: what the metrics at k and the TREC run score. */
  ranked: string[];
  /** The distinct files of the context, in block order (what `context.recall` scores); absent in reports made before it. */
  contextFiles?: string[];
  answer?: {
    generator: string;
    text: string;
    markers: number;
    citations: number;
    invalid: number;
    unsupported: number;
    noAnswer: boolean;
    /** The distinct files its verified citations name, in order of first use (issues skipped); absent in reports made before it. */
    files?: string[];
  };
  faithfulness?: {
    judge: string;
    /** Sentences judged, and how many of them the cited blocks support. */
    sentences: number;
    supported: number;
    /** sha256 over the blocks (chunk ids, texts) the judge was handed; equals the generator's (checked). */
    contextFingerprint: string;
    /** Model judges: sha256 of the generator's rendered context, computed by the harness after finding it verbatim in the messages sent to the judge's model. */
    renderedFingerprint?: string;
    /** Each sentence's verdict (sentence cut to 300 characters); absent in reports made before it was kept. */
    verdicts?: { sentence: string; markers: number[]; supported: boolean; reason: string }[];
  };
  /** Milliseconds per stage of `ask()` (lookup, translate, embed, retrieve, generate, verify, judge, total). */
  latency: Record<string, number>;
  /** Times the question ran (`cita eval --repeat`); its latencies are the medians over them. Absent: once. */
  repeats?: number;
  /** Set when the question failed; its metrics are then null. */
  error?: string;
}

/** Which questions an aggregate covers: a field left out means "all". */
export interface Group {
  /** Only in the gate's family (primary metrics per dataset × language). */
  dataset?: string;
  lang?: Lang;
  kind?: string;
  source?: Collection;
}

/** How an interval was computed: `wilson` (0/1 metrics), `newcombe` (paired 0/1), or the percentile `bootstrap`. */
export type IntervalMethod = 'wilson' | 'newcombe' | 'bootstrap';

/**
 * Mean with a 95% CI over the questions of the group where the metric applies: a Wilson score
 * interval when every value is 0 or 1, the percentile bootstrap otherwise.
 */
export interface Aggregate {
  group: Group;
  metric: string;
  n: number;
  mean: number;
  low: number;
  high: number;
  /** Absent in reports written before the score intervals (all bootstrap then). */
  interval?: IntervalMethod;
}

/** A primary metric (`eval.primary`): the gate's family; limited to some datasets or languages when given. */
export interface PrimaryMetric {
  metric: string;
  datasets?: string[];
  langs?: Lang[];
}

export interface TruncationRow {
  collection: Collection;
  chunks: number;
  /** The model's window in tokens. */
  window: number;
  maxTokens: number;
  /** Chunks over the window: must be 0. */
  overWindow: number;
  /** Chunk counts per token bucket: `[from, to)`. */
  histogram: { from: number; to: number; count: number }[];
}

/** What the index and the model can reach, per dataset and language (both absent: all questions). */
export interface CoverageRow {
  dataset?: string;
  lang?: Lang;
  questions: number;
  withGoldFiles: number;
  /** Questions none of whose gold files the index holds: counted in the retrieval means as misses, and here apart. */
  unreachable: number;
  partlyReachable: number;
  /** Mean share of gold files indexed over the questions with gold files: the highest mean file recall possible. */
  recallCeiling: number | null;
  /** Questions longer than the model window as a query (the model reads only their first `window` tokens). */
  overWindow: number;
  maxQueryTokens: number;
  window: number | null;
}

export interface FusionRow {
  kind: string;
  questions: number;
  /** Mean context slots per collection. */
  meanSlots: Record<Collection, number>;
  /** Share of questions whose used collections got exactly equal slots (the RRF symptom). */
  evenQuota: number;
  /** Share of all slots spent on collections holding none of the question's gold. */
  wastedSlots: number;
}

export interface LatencyRow {
  stage: string;
  n: number;
  p50: number;
  p95: number;
  mean: number;
}

export interface RunReport {
  /** `A`, `B`, `current`, `baseline`, or a name given on the command line. */
  label: string;
  /** Where the config came from: files and `--set` overrides, in order. */
  configSource: string[];
  configHash: string;
  /** The resolved configuration (after defaults, files and overrides). */
  config: unknown;
  model: { id: string; dims: number };
  generator: string;
  /** Which faithfulness judge ran (`offline:xling@…`, `llm:openai:…`, or `none`). */
  judge: string;
  /**
   * The language model translator, when it rendered questions in this run, and the llama.cpp CPU backend it ran on
   * (`cpu AVX2 AVX512 …`): renderings differ between backends, so Spanish figures of two machines can differ by it.
   */
  translator?: { id: string; backend: string };
  /** The judge's accuracy on datasets/judge-calibration.jsonl, measured in this run; absent without a judge or in older reports. */
  judgeCalibration?: JudgeCalibration;
  index: { chunks: Record<Collection, number>; meta: Record<string, string> };
  questions: QuestionResult[];
  aggregates: Aggregate[];
  truncation: TruncationRow[];
  /** Reachable gold and queries over the window; absent in reports written before it was recorded. */
  coverage?: CoverageRow[];
  fusion: FusionRow[];
  latency: LatencyRow[];
  /** Wall time of the whole run, seconds. */
  seconds: number;
  /** Spanish vs English on the paired questions (same pair id), per dataset; absent without pairs. */
  languageGap?: GapRow[];
}

/** How far a judge's faithfulness figures can be trusted: its accuracy on the labelled calibration items. */
export interface JudgeCalibration {
  judge: string;
  /** sha256 of the calibration file, and its items. */
  sha256: string;
  items: number;
  /** Accuracy per trap × language (`all` for the margins). */
  cells: { trap: string; lang: 'en' | 'es' | 'all'; n: number; correct: number; accuracy: number | null }[];
  /** On the held-out half (even ids) only: no threshold was set on it. */
  heldOut: { n: number; correct: number };
  /** What the judge says it cannot see. */
  blindSpots: string[];
}

/** es − en on questions asked in both languages, paired by `pair`; p Holm-adjusted over the table. */
export interface GapRow {
  metric: string;
  dataset: string;
  n: number;
  meanEn: number;
  meanEs: number;
  diff: number;
  low: number;
  high: number;
  interval?: IntervalMethod;
  p: number;
  pHolm: number;
  /** pHolm < 0.05 and |diff| ≥ the minimum effect: `gap` (es differs from en), else `none`. */
  verdict: 'gap' | 'none';
}

/**
 * A comparison of one metric: paired over the questions where both runs have it, or, for a metric
 * defined on answers (`MetricInfo.over`), unpaired over each run's own answers (`own` set).
 */
export interface Comparison {
  metric: string;
  group: Group;
  /** Paired: questions; over own answers: nA + nB. */
  n: number;
  /** Over own answers: each side's answers scored, and each side's answered rate in the group (NaN if none). */
  own?: { nA: number; nB: number; answeredA: number; answeredB: number };
  meanA: number;
  meanB: number;
  /** meanB − meanA, with a 95% CI of the difference (Newcombe's paired score interval for 0/1 metrics, else the paired bootstrap). */
  diff: number;
  low: number;
  high: number;
  interval?: IntervalMethod;
  /** Two-sided permutation test, unadjusted: paired (sign flips), or two-sample over own answers. */
  p: number;
  /**
   * p adjusted over its table: `holm` for the gate's family (primary metrics), `bh`
   * (Benjamini–Hochberg) for the exploratory table. Absent in reports written before #13.
   */
  pAdjusted?: number;
  adjustment?: 'holm' | 'bh';
  /**
   * Adjusted p < 0.05 and |diff| ≥ the minimum effect (`eval.minEffect`, points for shares):
   * `better` or `worse` for B by the metric's direction; else `same`.
   */
  verdict: 'better' | 'worse' | 'same';
}

/**
 * B − A latency (`latency.total`, ms), paired by question: the median of the per-question
 * differences with a bootstrap 95% CI. `order` says how the runs shared the machine (see
 * eval/interleave.ts); `warmup` questions per target ran first, uncounted.
 */
export interface LatencyComparison {
  /** `separate`: two runs made at different times (nightly: baseline and current). */
  order: 'interleaved' | 'sequential' | 'separate';
  warmup: number;
  n: number;
  medianA: number;
  medianB: number;
  medianDiff: number;
  low: number;
  high: number;
  /** medianDiff / medianA. */
  relative: number;
  /** The CI excludes 0. */
  significant: boolean;
}

/** Nightly: the latency gate's verdict (eval/latencyGate.ts). */
export interface LatencyGate {
  status: 'pass' | 'fail' | 'off';
  /** Share of the baseline's median latency a slowdown must exceed, with its whole CI, to fail. */
  tolerance: number;
  reason: string;
}

export interface DatasetInfo {
  name: string;
  path: string;
  sha256: string;
  records: number;
  /** The questions typed otherwise than written (`cita eval --typed unaccented`); absent when as written. */
  typed?: 'unaccented';
}

export interface ReportMeta {
  /** The exact command line that produced the report. */
  command: string;
  createdAt: string;
  git: { commit: string; dirty: boolean };
  instance: string;
  datasets: DatasetInfo[];
  node: string;
  /** Seeds and iteration counts of the statistics; the gate's primary metrics and minimum effect (points). */
  stats: { seed: string; bootstrap: number; permutations: number; primary?: PrimaryMetric[]; minEffect?: number };
  /** How the timed questions ran (eval/interleave.ts): the order of the targets and the uncounted warm-up questions per target; absent in older reports. */
  timing?: { order: 'interleaved' | 'sequential'; warmup: number; concurrency?: number; repeat?: number };
  /**
   * Results reused from earlier runs of the same config, index, model, dataset and code
   * (eval/resultCache.ts), per run label; their latency is that of the run that made them, so no
   * latency comparison is made when any were reused. Absent when nothing was reused or in older reports.
   */
  reused?: Record<string, number>;
}

export interface Report {
  version: typeof REPORT_VERSION;
  /** `run`: one configuration; `ab`: A vs B; `nightly`: current vs the committed baseline. */
  kind: 'run' | 'ab' | 'nightly';
  meta: ReportMeta;
  metrics: MetricInfo[];
  /** One run, or [A, B] (`ab`), or [baseline, current] (`nightly`). */
  runs: RunReport[];
  /** B vs A (or current vs baseline) for every metric and group: exploratory, BH-adjusted. */
  comparisons?: Comparison[];
  /** B vs A on the primary metrics per dataset × language: the gate's family, Holm-adjusted. */
  primary?: Comparison[];
  /** `ab` and `nightly`: B − A (current − baseline) median latency, paired by question. */
  latencyComparison?: LatencyComparison;
  /** Nightly only: fails when a primary metric is worse than the baseline (Holm, minimum effect), or latency is past its tolerance. */
  /** `errors`: ids of questions that failed in the current run (a failed question has no metrics to compare, so it fails the night by itself). */
  verdict?: { status: 'pass' | 'fail'; regressions: Comparison[]; baseline: string; errors?: string[]; latency?: LatencyGate };
}
