import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type EvaluateOptions } from '../eval/evaluate.ts';
import { codeVersion, resultKey } from '../eval/resultCache.ts';
import { evaluateQuestion } from '../eval/run.ts';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';

/**
 * #13 item 9: a run's per-question results are kept under a key of everything that makes them
 * (config, index, model, generator, judge, dataset, code) and reused by the next run with the same
 * key, so an A/B does not re-run A; anything different runs afresh. Counts of evaluated questions
 * are asserted, never times.
 */

const QUESTIONS = [
  ['en-skip', 'en', 'How do I skip a test?'],
  ['es-skip', 'es', '¿Cómo omito un test?'],
  ['en-install', 'en', 'How do I install widgets?'],
].map(([id, lang, question]) => ({ id, lang, kind: 'how-to', question, gold: { files: ['docs/guide.md'], source: 'docs' } }));

describe('evaluation result cache', () => {
  let p: TestProject;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: p.dir, stdio: 'pipe' });

  beforeAll(() => {
    p = makeDemoProject(['  provider: hashing', 'eval:', '  judge: { kind: none }', '  datasets:', '    - { name: demo, path: datasets/demo.jsonl }']);
    fs.mkdirSync(path.join(p.dir, 'datasets'));
    fs.writeFileSync(path.join(p.dir, 'datasets/demo.jsonl'), QUESTIONS.map((q) => JSON.stringify(q)).join('\n') + '\n');
    expect(cita(p, ['index', 'demo']).code).toBe(0);
    fs.writeFileSync(path.join(p.dir, '.gitignore'), '.cita/\nreports/\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'demo');
  });
  afterAll(() => p.cleanup());

  /** Runs evaluate() and returns the report with the (target, question) pairs actually evaluated. */
  const run = async (extra: Partial<EvaluateOptions> = {}) => {
    const calls: string[] = [];
    const logs: string[] = [];
    const report = await evaluate({
      root: p.dir,
      instance: 'demo',
      a: { overlays: [], overrides: [] },
      warmup: 1,
      argv: [],
      log: (m) => logs.push(m),
      evaluateOne: (t, q, jc, indexed) => {
        calls.push(`${t.label} ${q.id}`);
        return evaluateQuestion(t, q, jc, indexed);
      },
      ...extra,
    });
    return { report, calls, logs };
  };

  it('reuses every result of an identical run, and an A/B reuses A while B runs', async () => {
    const first = await run();
    expect(first.calls).toEqual(['demo en-skip', 'demo en-skip', 'demo es-skip', 'demo en-install']);
    expect(first.report.meta.reused).toBeUndefined();

    const again = await run();
    expect(again.calls).toEqual([]);
    expect(again.report.meta.reused).toEqual({ demo: 3 });
    expect(again.report.runs[0]!.questions).toEqual(first.report.runs[0]!.questions);
    expect(again.logs.some((m) => m.startsWith('cache: reused 3 of demo'))).toBe(true);

    const ab = await run({ b: { overlays: [], overrides: ['fusion.method=rrf'] } });
    // A's config is the first run's: reused whole. B is new: a warm-up question, then all three.
    expect(ab.calls).toEqual(['B en-skip', 'B en-skip', 'B es-skip', 'B en-install']);
    expect(ab.report.meta.reused).toEqual({ A: 3, B: 0 });
    // A's timings are from the earlier run: latency is not compared.
    expect(ab.report.latencyComparison).toBeUndefined();
    expect(ab.logs).toContain('latency: not compared (results reused from the cache)');
    expect(ab.report.comparisons!.length).toBeGreaterThan(0);
  });

  it('runs afresh when the code changes, and keeps nothing with cache off', async () => {
    const before = codeVersion(p.dir)!;
    fs.appendFileSync(path.join(p.dir, 'datasets/../config/instances/demo.yaml'), '# a comment changes the file, not the config\n');
    try {
      // The file is tracked: an uncommitted change is a new code version, so nothing is reused.
      expect(codeVersion(p.dir)).not.toBe(before);
      const changed = await run();
      expect(changed.calls).toHaveLength(4);
      const off = await run({ cache: false });
      expect(off.calls).toHaveLength(4);
      expect(off.report.meta.reused).toBeUndefined();
    } finally {
      git('checkout', '--', '.');
    }
    expect(codeVersion(p.dir)).toBe(before);
    expect((await run()).calls).toEqual([]);
  });

  it('runs afresh when a file not yet added to git changes (a new module), not for one git ignores', async () => {
    const before = codeVersion(p.dir)!;
    const module = path.join(p.dir, 'new-module.ts');
    fs.writeFileSync(module, 'export const x = 1;\n');
    try {
      const added = codeVersion(p.dir)!;
      expect(added).not.toBe(before);
      fs.writeFileSync(module, 'export const x = 2;\n');
      const edited = codeVersion(p.dir)!;
      expect(edited).not.toBe(added);
      fs.appendFileSync(path.join(p.dir, '.git/info/exclude'), 'scratch.log\n');
      fs.writeFileSync(path.join(p.dir, 'scratch.log'), 'ignored\n');
      expect(codeVersion(p.dir)).toBe(edited);
    } finally {
      fs.rmSync(module);
      fs.rmSync(path.join(p.dir, 'scratch.log'));
    }
    expect(codeVersion(p.dir)).toBe(before);
  });

  it('keeps the cache across commits of reports and prose', async () => {
    const before = codeVersion(p.dir)!;
    fs.mkdirSync(path.join(p.dir, 'reports'), { recursive: true });
    fs.writeFileSync(path.join(p.dir, 'README.md'), '# demo\n');
    fs.writeFileSync(path.join(p.dir, 'reports/ab.md'), '| a | b |\n');
    git('add', '-f', 'README.md', 'reports/ab.md');
    git('commit', '-qm', 'a report and a readme');
    expect(codeVersion(p.dir)).toBe(before);
    expect((await run()).calls).toEqual([]);
  });

  it('the key changes with each part', () => {
    const parts = { configHash: 'c', index: 'sqlite:/x:1', model: 'm', generator: 'g', judge: 'none', datasetSha256: 'd', code: 'abc' };
    const key = resultKey(parts);
    expect(resultKey({ ...parts })).toBe(key);
    for (const k of Object.keys(parts) as (keyof typeof parts)[]) expect(resultKey({ ...parts, [k]: `${parts[k]}!` })).not.toBe(key);
  });
});
