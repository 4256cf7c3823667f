import { describe, expect, it } from 'vitest';
import { latencyGate } from '../eval/latencyGate.ts';
import { nightlyReport } from '../eval/nightly.ts';
import { renderMarkdown } from '../eval/report/markdown.ts';
import { REPORT_VERSION, type LatencyComparison, type QuestionResult, type Report } from '../eval/report/types.ts';

/** The nightly latency gate (#13 item 6): a tolerance, and only a confident slowdown past it fails. */

const comparison = (medianA: number, medianDiff: number, low: number, high: number): LatencyComparison => ({
  order: 'separate',
  warmup: 3,
  n: 30,
  medianA,
  medianB: medianA + medianDiff,
  medianDiff,
  low,
  high,
  relative: medianDiff / medianA,
  significant: low > 0 || high < 0,
});

describe('latencyGate', () => {
  it('fails only when the low end of the CI is past the tolerance', () => {
    expect(latencyGate(comparison(1000, 500, 400, 600), 0.25).status).toBe('fail');
    // 30% slower in the median, but the CI reaches down to +20%: not confidently past 25%.
    expect(latencyGate(comparison(1000, 300, 200, 400), 0.25).status).toBe('pass');
    // Significant but within the tolerance.
    expect(latencyGate(comparison(1000, 100, 50, 150), 0.25).status).toBe('pass');
    // Faster never fails.
    expect(latencyGate(comparison(1000, -500, -600, -400), 0.25).status).toBe('pass');
  });
  it('0 turns it off; no pairs pass; a negative tolerance is an error naming the key', () => {
    expect(latencyGate(comparison(1000, 5000, 4000, 6000), 0).status).toBe('off');
    expect(latencyGate(undefined, 0.25).status).toBe('pass');
    expect(() => latencyGate(undefined, -1)).toThrow(/eval.latencyTolerance/);
  });
  it('says why', () => {
    expect(latencyGate(comparison(1000, 500, 400, 600), 0.25).reason).toBe('median latency slower by 50.0% (95% CI from +40.0%), beyond the tolerance of 25.0%');
  });
});

function q(id: string, total: number): QuestionResult {
  return {
    id,
    dataset: 'd',
    lang: id.startsWith('es') ? 'es' : 'en',
    kind: 'code',
    expectedSource: 'code',
    question: id,
    gold: { files: ['a.py'], issues: [] },
    metrics: { 'file.recall@5': 1, 'latency.total': total },
    route: { top: 'code', weights: { docs: 0, code: 1, issues: 0 } },
    slots: { docs: 0, code: 8, issues: 0 },
    ranked: ['a.py'],
    latency: { total },
  };
}

function report(times: number[], tolerance?: number): Report {
  return {
    version: REPORT_VERSION,
    kind: 'run',
    meta: { command: 'x', createdAt: 't', git: { commit: 'c', dirty: false }, instance: 'i', datasets: [], node: 'v20', stats: { seed: 's', bootstrap: 500, permutations: 500, primary: [{ metric: 'file.recall@5' }] }, timing: { order: 'interleaved', warmup: 3 } },
    metrics: [
      { name: 'file.recall@5', label: 'Recall@5', direction: 'higher', unit: 'share', description: '' },
      { name: 'latency.total', label: 'Latency', direction: 'lower', unit: 'ms', description: '' },
    ],
    runs: [
      {
        label: 'pytest',
        configSource: [],
        configHash: 'h',
        config: tolerance === undefined ? { eval: {} } : { eval: { latencyTolerance: tolerance } },
        model: { id: 'm', dims: 2 },
        generator: 'g',
        judge: 'none',
        index: { chunks: { docs: 0, code: 1, issues: 0 }, meta: {} },
        questions: times.map((t, i) => q(`${i % 2 ? 'es' : 'en'}-${i}`, t)),
        aggregates: [],
        truncation: [],
        fusion: [],
        latency: [],
        seconds: 1,
      },
    ],
  };
}

describe('nightly latency gate', () => {
  const base = Array.from({ length: 20 }, (_, i) => 400 + 37 * i);

  it('a run twice as slow on every question fails the night (quality unchanged)', () => {
    const r = nightlyReport(report(base), report(base.map((t) => t * 2)), 'reports/baseline.json');
    expect(r.comparisons!.filter((c) => c.verdict === 'worse' && c.metric !== 'latency.total')).toEqual([]);
    expect(r.verdict!.status).toBe('fail');
    expect(r.verdict!.latency!.status).toBe('fail');
    expect(r.latencyComparison).toMatchObject({ order: 'separate', warmup: 3, n: 20 });
    expect(renderMarkdown(r)).toContain('Latency gate: FAIL: median latency slower by');
  });

  it('10% slower everywhere is significant but within the default 25%: the night passes', () => {
    const r = nightlyReport(report(base), report(base.map((t) => t * 1.1)), 'reports/baseline.json');
    expect(r.latencyComparison!.significant).toBe(true);
    expect(r.verdict!.latency!.status).toBe('pass');
    expect(r.verdict!.status).toBe('pass');
  });

  it('the tolerance comes from the current run’s eval.latencyTolerance', () => {
    const tight = nightlyReport(report(base), report(base.map((t) => t * 1.1), 0.05), 'reports/baseline.json');
    expect(tight.verdict!.latency).toMatchObject({ status: 'fail', tolerance: 0.05 });
    const off = nightlyReport(report(base), report(base.map((t) => t * 3), 0), 'reports/baseline.json');
    expect(off.verdict!.latency!.status).toBe('off');
    expect(off.verdict!.status).toBe('pass');
  });
});
