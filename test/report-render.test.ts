import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatAggregate, formatCi, formatDiff, formatMs, formatP, formatShare, groupLabel } from '../eval/report/format.ts';
import { DELTA_CHART, HISTOGRAM_CHART, RANKING_CHART, SLOT_CHART, renderHtml } from '../eval/report/html.ts';
import { renderMarkdown } from '../eval/report/markdown.ts';
import {
  REPORT_VERSION,
  type Aggregate,
  type Comparison,
  type MetricInfo,
  type QuestionResult,
  type Report,
  type RunReport,
} from '../eval/report/types.ts';
import { writeReport } from '../eval/report/write.ts';

const HOSTILE = `Why does <script src="https://evil.example/x.js">alert('pwn')</script> & "quotes" fail?`;
const HOSTILE_ESCAPED =
  'Why does &lt;script src=&quot;https://evil.example/x.js&quot;&gt;alert(&#39;pwn&#39;)&lt;/script&gt; &amp; &quot;quotes&quot; fail?';

const METRICS: MetricInfo[] = [
  { name: 'recall@5', label: 'Recall@5', direction: 'higher', unit: 'share', description: 'gold files in the first 5' },
  { name: 'mrr', label: 'MRR', direction: 'higher', unit: 'share', description: 'reciprocal rank of the first gold file' },
  { name: 'routing.accuracy', label: 'Routing accuracy', direction: 'higher', unit: 'share', description: 'router top = expected source' },
  { name: 'latency.total', label: 'Latency (total)', direction: 'lower', unit: 'ms', description: 'ask() wall time' },
];

function question(id: string, lang: 'en' | 'es', kind: string, text: string, extra: Partial<QuestionResult> = {}): QuestionResult {
  return {
    id,
    dataset: 'pytest-localization',
    lang,
    kind,
    expectedSource: 'code',
    question: text,
    gold: { files: ['src/_pytest/skipping.py'], issues: [5103] },
    metrics: { 'recall@5': 1, mrr: 0.5, 'routing.accuracy': 1, 'latency.total': 104.2 },
    route: { top: 'code', weights: { docs: 0.2, code: 0.7, issues: 0.1 } },
    slots: { docs: 2, code: 6, issues: 0 },
    ranked: ['src/_pytest/mark/structures.py', 'src/_pytest/skipping.py'],
    latency: { embed: 12, retrieve: 40, total: 104.2 },
    ...extra,
  };
}

function agg(metric: string, group: Aggregate['group'], n: number, mean: number, low: number, high: number): Aggregate {
  return { metric, group, n, mean, low, high };
}

function run(label: string, shift: number): RunReport {
  return {
    label,
    configSource: ['config/instances/pytest.yaml', `--set fusion.method=${label === 'A' ? 'proportional' : 'rrf'}`],
    configHash: label === 'A' ? 'aaaa1111bbbb2222cccc3333' : 'dddd4444eeee5555ffff6666',
    config: { fusion: { method: label === 'A' ? 'proportional' : 'rrf' } },
    model: { id: 'Xenova/multilingual-e5-small', dims: 384 },
    generator: 'extractive',
    judge: 'offline:support',
    ...(label === 'A'
      ? {
          judgeCalibration: {
            judge: 'offline:xling@0.89',
            sha256: 'cafebabe0123456789',
            items: 4,
            cells: [
              { trap: 'negation', lang: 'en' as const, n: 2, correct: 1, accuracy: 0.5 },
              { trap: 'negation', lang: 'all' as const, n: 2, correct: 1, accuracy: 0.5 },
              { trap: 'paraphrase-es', lang: 'es' as const, n: 2, correct: 2, accuracy: 1 },
              { trap: 'paraphrase-es', lang: 'all' as const, n: 2, correct: 2, accuracy: 1 },
              { trap: 'all', lang: 'en' as const, n: 2, correct: 1, accuracy: 0.5 },
              { trap: 'all', lang: 'es' as const, n: 2, correct: 2, accuracy: 1 },
              { trap: 'all', lang: 'all' as const, n: 4, correct: 3, accuracy: 0.75 },
            ],
            heldOut: { n: 2, correct: 1 },
            blindSpots: ['a swapped <name>'],
          },
        }
      : {}),
    index: { chunks: { docs: 120, code: 800, issues: 300 }, meta: { 'model.sha256': 'f00dfeed' } },
    questions: [
      question('loc-1', 'en', 'issue-text', 'Where is the skip marker evaluated?'),
      question('loc-2', 'es', 'issue-text', HOSTILE, { error: 'TypeError: <b>boom</b>', metrics: { 'recall@5': null, mrr: null } }),
      question('qa-3', 'es', 'code', '¿Dónde se evalúa el marcador skip?'),
    ],
    aggregates: [
      agg('recall@5', {}, 22, 0.5 + shift, 0.3 + shift, 0.7 + shift),
      agg('recall@5', { lang: 'en' }, 12, 0.4, 0.2, 0.6),
      agg('recall@5', { lang: 'es' }, 10, 0.55, 0.35, 0.75),
      agg('recall@5', { kind: 'code', lang: 'es' }, 4, 0.25, 0.1, 0.5),
      agg('mrr', {}, 2, 0.5, 0.25, 0.75),
      agg('mrr', { lang: 'en' }, 2, 0.5, 0.25, 0.75),
      agg('mrr', { lang: 'es' }, 0, 0, 0, 0),
      agg('latency.total', {}, 3, 109.4, 95, 130),
    ],
    truncation: [
      {
        collection: 'docs',
        chunks: 120,
        window: 512,
        maxTokens: 498,
        overWindow: 0,
        histogram: [
          { from: 0, to: 128, count: 60 },
          { from: 128, to: 256, count: 30 },
          { from: 256, to: 384, count: 20 },
          { from: 384, to: 512, count: 10 },
        ],
      },
    ],
    fusion: [
      { kind: 'issue-text', questions: 2, meanSlots: { docs: 2, code: 6, issues: 0 }, evenQuota: 0.5, wastedSlots: 0.25 },
      { kind: 'code', questions: 1, meanSlots: { docs: 1, code: 3, issues: 0 }, evenQuota: 0, wastedSlots: 0.25 },
    ],
    latency: [
      { stage: 'embed', n: 3, p50: 12, p95: 14.5, mean: 12.4 },
      { stage: 'total', n: 3, p50: 104.2, p95: 130, mean: 109.4 },
    ],
    seconds: 12.5,
  };
}

const COMPARISONS: Comparison[] = [
  { metric: 'recall@5', group: {}, n: 22, meanA: 0.5, meanB: 0.6, diff: 0.1, low: 0.02, high: 0.18, p: 0.003, pAdjusted: 0.0046, adjustment: 'bh', verdict: 'better' },
  { metric: 'latency.total', group: {}, n: 3, meanA: 109.4, meanB: 150.2, diff: 40.8, low: 12, high: 70, p: 0.0004, pAdjusted: 0.0012, adjustment: 'bh', verdict: 'worse' },
  { metric: 'mrr', group: { lang: 'en' }, n: 2, meanA: 0.5, meanB: 0.51, diff: 0.01, low: -0.05, high: 0.07, p: 0.41, pAdjusted: 0.41, adjustment: 'bh', verdict: 'same' },
];
/** The gate's family: a primary metric per dataset × language, Holm-adjusted. */
const PRIMARY: Comparison[] = [
  { metric: 'recall@5', group: { dataset: 'loc', lang: 'es' }, n: 40, meanA: 0.6, meanB: 0.45, diff: -0.15, low: -0.25, high: -0.05, p: 0.004, pAdjusted: 0.008, adjustment: 'holm', verdict: 'worse' },
  { metric: 'recall@5', group: { dataset: 'loc', lang: 'en' }, n: 40, meanA: 0.6, meanB: 0.59, diff: -0.01, low: -0.08, high: 0.06, p: 0.04, pAdjusted: 0.08, adjustment: 'holm', verdict: 'same' },
];

function abReport(): Report {
  return {
    version: REPORT_VERSION,
    kind: 'ab',
    meta: {
      command: 'cita eval pytest --config A.yaml --vs B.yaml',
      createdAt: '2026-11-29T22:00:00.000Z',
      git: { commit: '0123456789abcdef0123456789abcdef01234567', dirty: true },
      instance: 'pytest',
      datasets: [
        { name: 'pytest-localization', path: '../shared/datasets/loc.jsonl', sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', records: 240 },
      ],
      node: 'v20.19.0',
      stats: { seed: 'cita-42', bootstrap: 2000, permutations: 5000 },
    },
    metrics: METRICS,
    runs: [run('A', 0), run('B', 0.1)],
    comparisons: COMPARISONS,
    primary: PRIMARY,
  };
}

/** The cells of a Markdown table row, bold markers removed. */
function cells(line: string): string[] {
  return line
    .replace(/^\|\s*/, '')
    .replace(/\s*\|$/, '')
    .split(' | ')
    .map((c) => c.replace(/\*\*/g, '').trim());
}

function section(md: string, heading: string): string {
  const start = md.indexOf(`\n${heading}\n`);
  expect(start, `section ${heading}`).toBeGreaterThanOrEqual(0);
  const rest = md.slice(start + heading.length + 2);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

function attr(tag: string, name: string): number {
  const m = new RegExp(` ${name}="([^"]*)"`).exec(tag);
  expect(m, `${name} in ${tag}`).not.toBeNull();
  return Number(m?.[1]);
}

describe('format', () => {
  it('formats by unit', () => {
    expect(formatShare(0.412)).toBe('41.2%');
    expect(formatCi(0.412, 0.35, 0.479, 'share')).toBe('41.2 [35.0, 47.9]');
    expect(formatMs(109.4)).toBe('109 ms');
    expect(formatP(0.003)).toBe('p = 0.003');
    expect(formatP(0.0004)).toBe('p < 0.001');
    expect(groupLabel({ lang: 'es', kind: 'issue-text', source: 'code' })).toBe('es · issue-text · code');
    expect(groupLabel({})).toBe('all');
    expect(formatDiff(0.031, 0.005, 0.058, 'share')).toBe('+3.1 pp [+0.5, +5.8]');
    expect(formatDiff(-0.0001, -0.02, 0.01, 'share')).toBe('0.0 pp [-2.0, +1.0]');
    expect(formatAggregate(agg('mrr', {}, 0, 0, 0, 0), 'share')).toBe('–');
    expect(formatAggregate(undefined, 'share')).toBe('–');
  });
});

describe('renderMarkdown', () => {
  const report = abReport();
  const md = renderMarkdown(report);

  it('records everything needed to reproduce the figures', () => {
    const repro = section(md, '## Reproduce');
    for (const needle of [
      'cita eval pytest --config A.yaml --vs B.yaml',
      '0123456789abcdef0123456789abcdef01234567',
      '+dirty',
      '`pytest`',
      'aaaa1111bbbb', // config hash prefixes, one per run
      'dddd4444eeee',
      'config/instances/pytest.yaml',
      '--set fusion.method=rrf',
      'Xenova/multilingual-e5-small',
      'extractive',
      'offline:support',
      'pytest-localization',
      '9f86d081884c', // dataset sha256 prefix
      '| 240 |',
      '2026-11-29T22:00:00.000Z',
      'cita-42',
      '2000 bootstrap',
      '5000 permutations',
    ]) {
      expect(repro, needle).toContain(needle);
    }
    expect(repro).not.toContain('9f86d081884c7d659a2f'); // a prefix, not the whole checksum
  });

  it("shows each judge's calibration accuracy in the header (#13 item 5), and what it cannot see", () => {
    const repro = section(md, '## Reproduce');
    const row = repro.split('\n').find((l) => l.startsWith('| A | offline:xling@0.89 |'));
    expect(row, repro).toBeDefined();
    expect(cells(row!)).toEqual(['A', 'offline:xling@0.89', '75% (3/4)', '50% (1/2)', '50% (1/2)', '100% (2/2)', '50% (1/2)', '100% (2/2)']);
    expect(repro).toContain('| run | judge | all | held-out | en | es | negation | paraphrase-es |');
    expect(repro).toContain('`offline:xling@0.89` cannot see: a swapped &lt;name>.');
    // Run B has no calibration (an older report): no row, no failure.
    expect(repro).not.toMatch(/^\| B \| offline:xling/m);
  });

  it('puts English and Spanish side by side with CIs, and – where n = 0', () => {
    const runA = section(md, '## Run A');
    expect(runA).toContain('| metric | all | en | es |');
    const recall = runA.split('\n').find((l) => l.startsWith('| Recall@5 (%) |'));
    expect(cells(recall ?? '')).toEqual(['Recall@5 (%)', '50.0 [30.0, 70.0] (22†)', '40.0 [20.0, 60.0] (12†)', '55.0 [35.0, 75.0] (10†)']);
    const mrr = runA.split('\n').find((l) => l.startsWith('| MRR (%) |'));
    expect(cells(mrr ?? '')).toEqual(['MRR (%)', '50.0 [25.0, 75.0] (2†)', '50.0 [25.0, 75.0] (2†)', '–']);
    const routing = runA.split('\n').find((l) => l.startsWith('| Routing accuracy (%) |'));
    expect(cells(routing ?? '')).toEqual(['Routing accuracy (%)', '–', '–', '–']); // no aggregate at all
    expect(runA).toContain('| kind | metric | all | en | es |');
    const byKind = runA.split('\n').find((l) => l.startsWith('| code | Recall@5 (%) |'));
    expect(cells(byKind ?? '')).toEqual(['code', 'Recall@5 (%)', '–', '–', '25.0 [10.0, 50.0] (4†)']);
  });

  it('shows fusion, truncation and latency tables', () => {
    const runB = section(md, '## Run B');
    expect(runB).toContain('| issue-text | 2 | 2.00 | 6.00 | 0.00 | 50.0% | 25.0% |');
    expect(runB).toContain('| docs | 120 | 512 | 498 | 0 |');
    expect(runB).toContain('| total | 3 | 104 ms | 130 ms | 109 ms |');
  });

  it('marks significant comparisons in both directions', () => {
    const comparison = section(md, '## Comparison (exploratory)');
    expect(comparison).toContain('| metric | group | n | A | B | Δ B − A [95% CI] | p | p (BH) | verdict |');
    const rows = comparison.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| metric') && !l.startsWith('| ---'));
    expect(rows).toHaveLength(3);
    const byMetric = new Map(rows.map((r) => [cells(r)[0], cells(r)]));
    expect(byMetric.get('Recall@5')).toEqual(['Recall@5', 'all', '22†', '50.0%', '60.0%', '+10.0 pp [+2.0, +18.0]', 'p = 0.003', 'p = 0.005', '▲ better']);
    expect(byMetric.get('Latency (total)')).toEqual(['Latency (total)', 'all', '3†', '109 ms', '150 ms', '+41 ms [+12, +70]', 'p < 0.001', 'p = 0.001', '▼ worse']);
    expect(byMetric.get('MRR')).toEqual(['MRR', 'en', '2†', '50.0%', '51.0%', '+1.0 pp [-5.0, +7.0]', 'p = 0.410', 'p = 0.410', '– same']);
    // Significant rows are bold, the same one is not.
    expect(rows.find((r) => r.includes('Recall@5'))).toMatch(/^\| \*\*Recall@5\*\* .*\*\*▲ better\*\* \|$/);
    expect(rows.find((r) => r.includes('Latency'))).toMatch(/\*\*▼ worse\*\* \|$/);
    expect(rows.find((r) => r.includes('MRR'))).not.toContain('**');
    expect(comparison).toContain('1 ▲ better, 1 ▼ worse');
    expect(comparison).toContain('Benjamini–Hochberg');
    expect(comparison).toContain('† fewer than 30 questions');
  });

  it('shows the gate family with raw p beside the Holm-adjusted p, per dataset × language', () => {
    const primary = section(md, '## Primary metrics (the gate)');
    expect(primary).toContain('| metric | group | n | A | B | Δ B − A [95% CI] | p | p (Holm) | verdict |');
    const rows = primary.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| metric') && !l.startsWith('| ---')).map(cells);
    expect(rows).toEqual([
      ['Recall@5', 'loc · es', '40', '60.0%', '45.0%', '-15.0 pp [-25.0, -5.0]', 'p = 0.004', 'p = 0.008', '▼ worse'],
      ['Recall@5', 'loc · en', '40', '60.0%', '59.0%', '-1.0 pp [-8.0, +6.0]', 'p = 0.040', 'p = 0.080', '– same'],
    ]);
    expect(primary).toContain('Holm-adjusted over these 2 comparisons');
    expect(primary).toContain('at least 2 pp');
  });

  it('gives the nightly verdict and leaves comparisons out of a single run', () => {
    const failing: Report = {
      ...abReport(),
      kind: 'nightly',
      verdict: { status: 'fail', regressions: [COMPARISONS[1] as Comparison], baseline: 'reports/baseline.json' },
    };
    const verdict = section(renderMarkdown(failing), '## Verdict');
    expect(verdict).toContain('**FAIL**');
    expect(verdict).toContain('reports/baseline.json');
    expect(verdict).toMatch(/\| \*\*Latency \(total\)\*\* \| all \| 3† \|.*▼ worse/);
    expect(verdict).toContain('Holm over 2 primary comparisons');
    const passing = renderMarkdown({ ...failing, verdict: { status: 'pass', regressions: [], baseline: 'reports/baseline.json' } });
    expect(section(passing, '## Verdict')).toContain('**PASS**');
    const single = renderMarkdown({ ...abReport(), kind: 'run', runs: [run('current', 0)], comparisons: undefined });
    expect(single).not.toContain('## Comparison');
    expect(single).not.toContain('## Verdict');
  });
});

describe('renderHtml', () => {
  const report = abReport();
  const html = renderHtml(report);

  it('is self-contained: no tag refers to anything outside the page, and no script', () => {
    const tags = html.match(/<[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(100);
    for (const tag of tags) {
      expect(tag).not.toMatch(/:\/\//);
      expect(tag).not.toMatch(/\s(src|href)=/i);
    }
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/url\(|@import/i);
    // The only URL is inside the escaped question text.
    const urls = html.match(/https?:\/\//g) ?? [];
    const inText = html.split(HOSTILE_ESCAPED).length - 1;
    expect(inText).toBeGreaterThanOrEqual(2); // the question appears in both runs' per-question tables
    expect(urls).toHaveLength(inText);
    expect(html).toMatch(/^<!doctype html>/);
  });

  it("shows each judge's calibration accuracy in the header", () => {
    expect(html).toContain('<h3>Judge calibration</h3>');
    expect(html).toMatch(/<td[^>]*>offline:xling@0\.89<\/td><td[^>]*>75% \(3\/4\)<\/td>/);
    expect(html).toContain('cannot see: a swapped &lt;name&gt;.');
  });

  it('escapes hostile text', () => {
    expect(html).toContain(HOSTILE_ESCAPED);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('TypeError: &lt;b&gt;boom&lt;/b&gt;');
    expect(html).not.toContain('<b>boom</b>');
    expect(html).toContain('<details class="questions"><summary>Per question (3)</summary>');
  });

  it('draws the per-language CI whiskers at the pixels of low and high', () => {
    expect(html).toContain('<svg');
    // Documented geometry: y = top + (1 − v) × plotHeight with top 16, plot height 200.
    expect(RANKING_CHART.top).toBe(16);
    expect(RANKING_CHART.plotHeight).toBe(200);
    const whisker = /<line class="whisker" data-run="A" data-metric="recall@5" data-lang="en"[^>]*>/.exec(html)?.[0] ?? '';
    // recall@5 en of run A: mean 0.4, CI [0.2, 0.6] → y(0.2) = 16 + 0.8 × 200 = 176, y(0.6) = 16 + 0.4 × 200 = 96.
    expect(attr(whisker, 'y1')).toBe(176);
    expect(attr(whisker, 'y2')).toBe(96);
    const bar = /<rect class="bar" data-run="A" data-metric="recall@5" data-lang="en"[^>]*>/.exec(html)?.[0] ?? '';
    expect(attr(bar, 'y')).toBe(136); // y(0.4) = 16 + 0.6 × 200
    expect(attr(bar, 'height')).toBe(80); // down to y(0) = 216
    // First metric group at left = 44, bars inset (64 − 2×22 − 4)/2 = 8: en bar x = 52, centre 63.
    expect(attr(bar, 'x')).toBe(52);
    expect(attr(whisker, 'x1')).toBe(63);
    const es = /<line class="whisker" data-run="A" data-metric="recall@5" data-lang="es"[^>]*>/.exec(html)?.[0] ?? '';
    expect(attr(es, 'x1')).toBe(63 + 26);
    expect(attr(es, 'y1')).toBe(146); // y(0.35) = 16 + 0.65 × 200
    expect(attr(es, 'y2')).toBe(66); // y(0.75)
    // MRR has no Spanish question: no bar, a dash instead.
    expect(html).not.toMatch(/<rect class="bar" data-run="A" data-metric="mrr" data-lang="es"/);
    expect(html).toMatch(/<text class="na" data-run="A" data-metric="mrr" data-lang="es"[^>]*>–<\/text>/);
    // Routing accuracy and latency are not ranking metrics.
    expect(html).not.toMatch(/data-metric="latency.total" data-lang/);
  });

  it('stacks slots per kind and marks the window on the truncation histogram', () => {
    const slot = (kind: string, col: string) =>
      /width="([\d.]+)"/.exec(new RegExp(`<rect class="slot" data-kind="${kind}" data-collection="${col}"[^>]*>`).exec(html)?.[0] ?? '')?.[1];
    // Largest stack is issue-text (2 + 6 + 0 = 8 slots) → full width 360; docs 2/8, code 6/8.
    expect(Number(slot('issue-text', 'docs'))).toBe((2 / 8) * SLOT_CHART.width);
    expect(Number(slot('issue-text', 'code'))).toBe((6 / 8) * SLOT_CHART.width);
    expect(Number(slot('code', 'code'))).toBe((3 / 8) * SLOT_CHART.width);
    expect(slot('issue-text', 'issues')).toBeUndefined(); // zero slots: no segment
    const window = /<line class="window" data-window="512"[^>]*>/.exec(html)?.[0] ?? '';
    const expected = Math.round((HISTOGRAM_CHART.left + (512 / (512 * 1.05)) * HISTOGRAM_CHART.width) * 100) / 100;
    expect(expected).toBe(348.76);
    expect(attr(window, 'x1')).toBe(expected);
    expect(html).toContain('window 512');
  });

  it('draws A/B deltas around 0, coloured by verdict', () => {
    const find = (metric: string, what: 'circle' | 'line') =>
      new RegExp(`<${what} class="delta(-ci)? (better|worse|same)" data-metric="${metric}"[^>]*>`).exec(html)?.[0] ?? '';
    expect(find('recall@5', 'circle')).toContain('class="delta better"');
    expect(find('latency.total', 'circle')).toContain('class="delta worse"');
    expect(find('mrr', 'circle')).toContain('class="delta same"');
    // Shares in their own chart, symmetric around 0 at left + width / 2.
    const zero = DELTA_CHART.left + DELTA_CHART.width / 2;
    const recall = find('recall@5', 'line');
    const mrr = find('mrr', 'line');
    expect(attr(recall, 'x1')).toBeGreaterThan(zero); // CI [+0.02, +0.18] is right of 0
    expect(attr(mrr, 'x1')).toBeLessThan(zero); // CI [-0.05, +0.07] straddles 0
    expect(attr(mrr, 'x2')).toBeGreaterThan(zero);
    // Extent 0.18 × 1.1 in the share chart: x(0.18) = 240 + (0.18 + 0.198) / 0.396 × 300.
    expect(attr(recall, 'x2')).toBeCloseTo(240 + ((0.18 + 0.198) / 0.396) * 300, 2);
    expect(html).toMatch(/<tr class="better">.*▲ better/);
    expect(html).toMatch(/<tr class="worse">.*▼ worse/);
    const single = renderHtml({ ...abReport(), kind: 'run', runs: [run('current', 0)], comparisons: undefined });
    expect(single).not.toContain('class="delta');
  });
});

describe('writeReport', () => {
  const root = mkdtempSync(join(tmpdir(), 'cita-report-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes the three files into a new directory; the JSON round-trips', () => {
    const report = abReport();
    const dir = join(root, 'reports', 'nested');
    const paths = writeReport(report, dir, 'ab-fusion');
    expect(paths).toEqual({ json: join(dir, 'ab-fusion.json'), md: join(dir, 'ab-fusion.md'), html: join(dir, 'ab-fusion.html') });
    expect(readdirSync(dir).sort()).toEqual(['ab-fusion.html', 'ab-fusion.json', 'ab-fusion.md']);
    const json = readFileSync(paths.json, 'utf8');
    expect(json).toContain('\n  "version": 1,'); // pretty
    expect(JSON.parse(json)).toStrictEqual(report);
    expect(readFileSync(paths.md, 'utf8')).toBe(renderMarkdown(report));
    expect(readFileSync(paths.html, 'utf8')).toBe(renderHtml(report));
  });

  it('leaves the previous report whole when a new one cannot be produced', () => {
    const dir = join(root, 'atomic');
    const good = abReport();
    const paths = writeReport(good, dir, 'nightly');
    const before = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
    const broken = { ...abReport(), runs: [{ ...run('A', 0), aggregates: null }] } as unknown as Report;
    expect(() => writeReport(broken, dir, 'nightly')).toThrow();
    expect(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')])).toEqual(before); // no temp files, nothing changed
    expect(JSON.parse(readFileSync(paths.json, 'utf8'))).toStrictEqual(good);
    expect(() => writeReport(good, dir, '../escape')).toThrow(/not a file name/);
  });

  it('removes its temporary files when a write fails', () => {
    const dir = join(root, 'blocked');
    mkdirSync(join(dir, 'run.html'), { recursive: true }); // a directory where the page should go
    expect(() => writeReport(abReport(), dir, 'run')).toThrow();
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
