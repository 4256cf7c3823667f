import { describe, expect, it } from 'vitest';
import { drilldownSections, firstGoldRank, latencySentence, movements } from '../eval/report/drilldown.ts';
import { renderHtml } from '../eval/report/html.ts';
import { renderMarkdown } from '../eval/report/markdown.ts';
import { REPORT_VERSION, type MetricInfo, type QuestionResult, type Report, type RunReport } from '../eval/report/types.ts';

/** The A/B drill-down (#13 item 8): which questions moved on the main retrieval metrics, and why. */

const METRICS: MetricInfo[] = [
  { name: 'file.recall@5', label: 'Recall@5 (files)', direction: 'higher', unit: 'share', description: '' },
  { name: 'file.acc@1', label: 'Acc@1 (files)', direction: 'higher', unit: 'share', description: '' },
  { name: 'latency.total', label: 'Latency (total)', direction: 'lower', unit: 'ms', description: '' },
];

const GOLD = 'src/_pytest/skipping.py';

function q(id: string, recall: number | null, ranked: string[], extra: Partial<QuestionResult> = {}): QuestionResult {
  return {
    id,
    dataset: 'd',
    lang: 'en',
    kind: 'code',
    expectedSource: 'code',
    question: `question ${id}`,
    gold: { files: [GOLD], issues: [] },
    metrics: { 'file.recall@5': recall, 'file.acc@1': ranked[0] === GOLD ? 1 : 0, 'latency.total': 100 },
    route: { top: 'code', weights: { docs: 0, code: 1, issues: 0 } },
    slots: { docs: 0, code: 8, issues: 0 },
    ranked,
    latency: { total: 100 },
    ...extra,
  };
}

function run(label: string, questions: QuestionResult[]): RunReport {
  return {
    label,
    configSource: [],
    configHash: label,
    config: {},
    model: { id: 'm', dims: 2 },
    generator: 'extractive',
    judge: 'none',
    index: { chunks: { docs: 1, code: 1, issues: 1 }, meta: {} },
    questions,
    aggregates: [],
    truncation: [],
    fusion: [],
    latency: [],
    seconds: 1,
  };
}

const HOSTILE = '<script>alert(1)</script>';
const A = run('A', [
  q('up', 0, ['a.py', 'b.py', 'c.py', 'd.py', 'e.py', GOLD]),
  q('down', 1, [GOLD, 'a.py']),
  q('still', 1, ['a.py', GOLD]),
  q('gone', 1, [GOLD], { question: HOSTILE }),
  q('none', null, []),
]);
const B = run('B', [
  q('down', 0, ['a.py', 'b.py', 'c.py', 'd.py', 'e.py'], { route: { top: 'docs', weights: { docs: 1, code: 0, issues: 0 } }, slots: { docs: 6, code: 2, issues: 0 } }),
  q('up', 1, [GOLD, 'a.py']),
  q('still', 1, ['b.py', GOLD]),
  q('gone', 0.5, ['x.py', 'y.py', GOLD], { question: HOSTILE }),
  q('none', 1, [GOLD]),
]);
const report: Report = {
  version: REPORT_VERSION,
  kind: 'ab',
  meta: { command: 'cita eval', createdAt: '2026-12-01T00:00:00Z', git: { commit: 'c', dirty: false }, instance: 'pytest', datasets: [], node: 'v20', stats: { seed: 's', bootstrap: 10, permutations: 10 } },
  metrics: METRICS,
  runs: [A, B],
  comparisons: [],
  latencyComparison: { order: 'interleaved', warmup: 3, n: 5, medianA: 800, medianB: 812, medianDiff: 12, low: -5, high: 30, relative: 0.015, significant: false },
};

describe('drill-down', () => {
  it('firstGoldRank: 1-based, null when no gold file is ranked', () => {
    expect(firstGoldRank(A.questions[0]!)).toBe(6);
    expect(firstGoldRank(B.questions[0]!)).toBeNull();
  });

  it('lists the questions whose metric moved, wins first, with route, slots and first gold rank on each side', () => {
    const moves = movements(report, 'file.recall@5');
    // 'still' did not move; 'none' has no value in A.
    expect(moves.map((m) => [m.id, m.outcome])).toEqual([['up', 'win'], ['gone', 'loss'], ['down', 'loss']]);
    const down = moves.find((m) => m.id === 'down')!;
    expect(down).toMatchObject({ a: 1, b: 0, route: ['code', 'docs'], slots: ['0/8/0', '6/2/0'], rank: [1, null] });
    expect(moves[0]!.rank).toEqual([6, 1]);
  });

  it('a metric where lower is better turns the outcome around', () => {
    const lower: Report = { ...report, metrics: METRICS.map((m) => (m.name === 'file.recall@5' ? { ...m, direction: 'lower' as const } : m)) };
    expect(movements(lower, 'file.recall@5').map((m) => [m.id, m.outcome])).toEqual([['down', 'win'], ['gone', 'win'], ['up', 'loss']]);
  });

  it('one section per listed metric with its counts; none for a single run', () => {
    const sections = drilldownSections(report);
    expect(sections.map((s) => [s.metric, s.summary])).toEqual([
      ['file.recall@5', '1 win, 2 losses, 1 unchanged (for B)'],
      ['file.acc@1', '2 wins, 2 losses, 1 unchanged (for B)'],
    ]);
    expect(sections[0]!.table.rows.map((r) => r.mark)).toEqual(['better', 'worse', 'worse']);
    expect(sections[0]!.table.rows[2]!.cells).toEqual(['down: question down', 'en · code', '100.0%', '0.0%', '▼ -100.0 pp', 'code → docs', '0/8/0 → 6/2/0', '1 → –']);
    expect(drilldownSections({ ...report, kind: 'run', runs: [A] })).toEqual([]);
  });

  it('both pages show the latency sentence and the drill-down, the HTML escaped', () => {
    const md = renderMarkdown(report);
    const html = renderHtml(report);
    for (const page of [md, html]) {
      expect(page).toContain('Drill-down: questions that moved');
      expect(page).toContain('1 win, 2 losses, 1 unchanged (for B)');
      expect(page).toContain('+12 ms [-5.0, +30] (+1.5% of A');
      expect(page).toContain('not significant');
      expect(page).toContain('code → docs');
    }
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(latencySentence(report)).toMatch(/interleaved per question .* 3 warm-up questions per config, not counted\.$/);
    const single = renderMarkdown({ ...report, kind: 'run', runs: [A], latencyComparison: undefined });
    expect(single).not.toContain('Drill-down');
    expect(single).not.toContain('## Latency\n');
  });
});
