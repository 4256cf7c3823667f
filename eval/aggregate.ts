import { COLLECTIONS } from '../pipeline/types.ts';
import type { Aggregate, Group, QuestionResult } from './report/types.ts';
import { meanInterval } from './stats/index.ts';

export interface StatsOptions {
  seed: string;
  bootstrap: number;
  permutations: number;
  /** Smallest difference called better/worse, in points for share metrics; DEFAULT_MIN_EFFECT (2) when absent. */
  minEffect?: number;
}

const LANGS = ['en', 'es'] as const;

/** The groups reported: all, by language, kind, expected source, and language × kind × expected source. */
export function groupsOf(questions: Pick<QuestionResult, 'lang' | 'kind' | 'expectedSource'>[]): Group[] {
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  const sources = COLLECTIONS.filter((s) => questions.some((q) => q.expectedSource === s));
  const triples = new Map<string, Group>();
  for (const q of questions) triples.set(`${q.lang}|${q.kind}|${q.expectedSource}`, { lang: q.lang, kind: q.kind, source: q.expectedSource });
  return [
    {},
    ...LANGS.filter((lang) => questions.some((q) => q.lang === lang)).map((lang) => ({ lang })),
    ...kinds.map((kind) => ({ kind })),
    ...sources.map((source) => ({ source })),
    ...LANGS.flatMap((lang) => kinds.map((kind) => ({ lang, kind }))).filter((g) => questions.some((q) => q.lang === g.lang && q.kind === g.kind)),
    ...[...triples.values()].sort((a, b) => `${a.lang}${a.kind}${a.source}`.localeCompare(`${b.lang}${b.kind}${b.source}`)),
  ];
}

export function inGroup(q: Pick<QuestionResult, 'lang' | 'kind' | 'expectedSource'>, g: Group): boolean {
  return (g.lang === undefined || q.lang === g.lang) && (g.kind === undefined || q.kind === g.kind) && (g.source === undefined || q.expectedSource === g.source);
}

/**
 * Mean and 95% CI of every metric in every group, over the questions where the metric applies (none:
 * no aggregate): a Wilson score interval where every value is 0 or 1, the percentile bootstrap otherwise.
 */
export function aggregate(questions: QuestionResult[], metrics: string[], stats: StatsOptions): Aggregate[] {
  const out: Aggregate[] = [];
  for (const group of groupsOf(questions)) {
    const members = questions.filter((q) => inGroup(q, group));
    for (const metric of metrics) {
      const values = members.map((q) => q.metrics[metric]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      // A metric that applies to none of the group's questions has no figure (rendered as –).
      if (values.length === 0) continue;
      const ci = meanInterval(values, { iterations: stats.bootstrap, seed: `${stats.seed}:${metric}:${JSON.stringify(group)}` });
      out.push({ group, metric, n: ci.n, mean: ci.mean, low: ci.low, high: ci.high, interval: ci.method });
    }
  }
  return out;
}
