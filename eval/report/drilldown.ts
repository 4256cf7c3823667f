import { COLLECTIONS } from '../../pipeline/types.ts';
import { comparedLabels, DASH, formatDiff, formatMs, formatValue, isFiniteNumber, metricInfo, signed, type Table, type TableRow } from './format.ts';
import type { LatencyComparison, QuestionResult, Report } from './types.ts';

/**
 * The A/B drill-down (#13 item 8) and the latency comparison (item 6) as plain data for both pages:
 * which questions moved on the main retrieval metrics and the route, slots and first gold rank on
 * each side that say why; and B − A latency as a paired median with its interval.
 */

/** Metrics whose per-question movements are listed. (When a dataset declares primary metrics, those.) */
export const DRILLDOWN_METRICS = ['file.recall@5', 'file.acc@1'];

/** 1-based rank of the first gold file in the question's ranking; null when none is ranked. */
export function firstGoldRank(q: QuestionResult): number | null {
  const gold = new Set(q.gold.files);
  const i = q.ranked.findIndex((f) => gold.has(f));
  return i < 0 ? null : i + 1;
}

export interface Movement {
  id: string;
  lang: string;
  kind: string;
  question: string;
  a: number;
  b: number;
  /** b − a in the metric's better direction is a win. */
  outcome: 'win' | 'loss';
  route: [string, string];
  slots: [string, string];
  rank: [number | null, number | null];
}

const slotsOf = (q: QuestionResult) => COLLECTIONS.map((c) => String(q.slots[c] ?? 0)).join('/');

/** Questions whose `metric` differs between the two runs (paired by id; both values defined), wins first, each by size of the move. */
export function movements(report: Report, metric: string): Movement[] {
  const [runA, runB] = report.runs;
  if (!runA || !runB) return [];
  const higher = metricInfo(report, metric).direction === 'higher';
  const byId = new Map(runB.questions.map((q) => [q.id, q]));
  const out: Movement[] = [];
  for (const qa of runA.questions) {
    const qb = byId.get(qa.id);
    const a = qa.metrics[metric];
    const b = qb?.metrics[metric];
    if (!qb || !isFiniteNumber(a) || !isFiniteNumber(b) || a === b) continue;
    out.push({
      id: qa.id,
      lang: qa.lang,
      kind: qa.kind,
      question: qa.question,
      a,
      b,
      outcome: b > a === higher ? 'win' : 'loss',
      route: [qa.route.top, qb.route.top],
      slots: [slotsOf(qa), slotsOf(qb)],
      rank: [firstGoldRank(qa), firstGoldRank(qb)],
    });
  }
  const gain = (m: Movement) => (higher ? m.b - m.a : m.a - m.b);
  return out.sort((x, y) => gain(y) - gain(x) || x.id.localeCompare(y.id));
}

const cutText = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const arrow = (x: string, y: string) => (x === y ? x : `${x} → ${y}`);
const rankText = (r: number | null) => (r === null ? DASH : String(r));

/** One metric's movements: a win is marked `better` for B, a loss `worse`. */
export function drilldownTable(report: Report, metric: string, moves = movements(report, metric)): Table {
  const [a, b] = comparedLabels(report);
  const unit = metricInfo(report, metric).unit;
  return {
    head: ['question', 'lang · kind', a, b, `Δ ${b} − ${a}`, 'route', 'slots d/c/i', 'first gold rank'],
    align: ['left', 'left', 'right', 'right', 'right', 'left', 'left', 'left'],
    rows: moves.map(
      (m): TableRow => ({
        cells: [
          `${m.id}: ${cutText(m.question, 80)}`,
          `${m.lang} · ${m.kind}`,
          formatValue(m.a, unit),
          formatValue(m.b, unit),
          `${m.outcome === 'win' ? '▲' : '▼'} ${formatDiff(m.b - m.a, NaN, NaN, unit)}`,
          arrow(...m.route),
          arrow(...m.slots),
          arrow(rankText(m.rank[0]), rankText(m.rank[1])),
        ],
        mark: m.outcome === 'win' ? 'better' : 'worse',
      }),
    ),
  };
}

export interface DrilldownSection {
  metric: string;
  label: string;
  /** `3 wins, 1 loss, 20 unchanged`. */
  summary: string;
  table: Table;
}

/** The drill-down of an A/B or nightly report, one section per listed metric the report has; empty for a single run. */
export function drilldownSections(report: Report, metrics = DRILLDOWN_METRICS): DrilldownSection[] {
  if (report.kind === 'run' || report.runs.length < 2) return [];
  const known = new Set(report.metrics.map((m) => m.name));
  return metrics
    .filter((m) => known.has(m))
    .map((metric) => {
      const moves = movements(report, metric);
      const wins = moves.filter((m) => m.outcome === 'win').length;
      const paired = pairedCount(report, metric);
      return {
        metric,
        label: metricInfo(report, metric).label,
        summary: `${wins} win${wins === 1 ? '' : 's'}, ${moves.length - wins} loss${moves.length - wins === 1 ? '' : 'es'}, ${paired - moves.length} unchanged (for ${comparedLabels(report)[1]})`,
        table: drilldownTable(report, metric, moves),
      };
    });
}

function pairedCount(report: Report, metric: string): number {
  const b = new Map(report.runs[1]!.questions.map((q) => [q.id, q]));
  return report.runs[0]!.questions.filter((q) => isFiniteNumber(q.metrics[metric]) && isFiniteNumber(b.get(q.id)?.metrics[metric])).length;
}

/** One sentence on B − A latency: the paired median difference, its CI, both medians, and how the runs were ordered. */
export function latencySentence(report: Report, c: LatencyComparison | undefined = report.latencyComparison): string | undefined {
  if (!c) return undefined;
  const [a, b] = comparedLabels(report);
  const how =
    c.order === 'interleaved'
      ? `${a} and ${b} interleaved per question (alternating which goes first)`
      : c.order === 'sequential'
        ? `all of ${a}, then all of ${b}`
        : `${a} and ${b} are separate runs made at different times (machine load may differ)`;
  return (
    `Latency ${b} − ${a}, median of the per-question differences (ask() without the judge): ${formatDiff(c.medianDiff, c.low, c.high, 'ms')} ` +
    `(${signed(c.relative, 'share')}% of ${a}'s median ${formatMs(c.medianA)}; ${b} ${formatMs(c.medianB)}; n ${c.n}), ` +
    `${c.significant ? 'significant (the 95% CI excludes 0)' : 'not significant (the 95% CI includes 0)'}. ${how}; ${c.warmup} warm-up question${c.warmup === 1 ? '' : 's'} per config, not counted.`
  );
}

/** Nightly: the latency gate's verdict in one sentence. */
export function latencyGateSentence(report: Report): string | undefined {
  const g = report.verdict?.latency;
  if (!g) return undefined;
  return `Latency gate: ${g.status.toUpperCase()}: ${g.reason}.`;
}
