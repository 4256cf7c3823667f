import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatasets } from '../datasets/questions.ts';
import { ask, RANK_DEPTH } from '../pipeline/answer/ask.ts';
import { withFileEvidence } from '../pipeline/retrieval/hybrid.ts';
import { searchCollections } from '../pipeline/retrieval/search.ts';
import { aggregate } from '../eval/aggregate.ts';
import { accuracyAt1 } from '../eval/metrics/accuracyAt1.ts';
import { ndcgAtK } from '../eval/metrics/ndcgAtK.ts';
import { recallAtK } from '../eval/metrics/recallAtK.ts';
import { reciprocalRank } from '../eval/metrics/reciprocalRank.ts';
import type { QuestionResult, Report, RunReport } from '../eval/report/types.ts';
import { evaluateQuestion } from '../eval/run.ts';
import { openTargets } from '../eval/target.ts';
import { trecQrels, trecRun, writeTrec } from '../eval/trec/export.ts';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';
import { root } from './support/paths.ts';

/**
 * Ranking metrics are over ask()'s ranking, deeper than the context and independent of the answer
 * budget; the context's recall is its own metric; a run exported in the TREC formats re-scores to
 * the harness's figures with trec_eval (eval/trec/rescore.sh, pytrec_eval through pip).
 */

const QUESTIONS = [
  ['en-skip', 'en', 'How do I skip a test on Windows?', 'docs/guide.md'],
  ['es-skip', 'es', '¿Cómo omito un test en Windows?', 'docs/guide.md'],
  ['en-install', 'en', 'How do I install widgets?', 'docs/guide.md'],
  ['es-install', 'es', '¿Cómo instalo widgets?', 'docs/guide.md'],
  ['en-parse', 'en', 'Which function reads a JSON configuration file?', 'src/loader.py'],
  ['es-parse', 'es', '¿Qué función lee un fichero de configuración JSON?', 'src/loader.py'],
  ['en-colour', 'en', 'How do I change the colour of the output?', 'docs/output.md'],
  ['en-both', 'en', 'How are configuration files and plugins loaded?', 'src/loader.py docs/plugins.md'],
].map(([id, lang, question, files]) => ({ id, lang, kind: 'how-to', question, gold: { files: files!.split(' '), source: files!.startsWith('src') ? 'code' : 'docs' } }));

/** More files than a small context holds, so the budget decides which reach it. */
const EXTRA: Record<string, string> = {
  'docs/output.md': '# Output\n\nThe colour of the output is set with --color=yes or --color=no.\n',
  'docs/plugins.md': '# Plugins\n\nPlugins are loaded from entry points and from the plugins option of the configuration file.\n',
  'docs/faq.md': '# FAQ\n\nWidgets runs tests. Tests can be skipped, configured and reported.\n',
  'docs/changelog.md': '# Changelog\n\n## 1.0\n\nFirst release: configuration files, skipping, output colour.\n',
  'src/report.py': 'def report(results):\n    """Print a summary of the test results, skipped tests included."""\n    for r in results:\n        print(r)\n',
  'src/plugins.py': 'def load_plugins(config):\n    """Load the plugins a configuration names."""\n    return [__import__(name) for name in config.get("plugins", [])]\n',
};

const RANKING = ['file.recall@5', 'file.recall@10', 'file.acc@1', 'file.mrr', 'file.ndcg@10', 'doc.recall@10'];
const stats = { seed: 'rankings', bootstrap: 50, permutations: 50 };

/** Whether pip can install here: without it the re-score is skipped locally, and fails under CI. */
const pip = spawnSync(process.env.PYTHON ?? 'python3', ['-m', 'pip', '--version'], { encoding: 'utf8' }).status === 0;
if (!pip && process.env.CI === 'true') throw new Error('python3 -m pip is unavailable: the TREC re-score test needs it under CI');

function rescore(report: string, ...args: string[]) {
  const r = spawnSync('bash', [path.join(root, 'eval/trec/rescore.sh'), report, '--json', ...args], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, rows: r.status === 0 || r.status === 1 ? (JSON.parse(r.stdout) as { run: string; lang: string; metric: string; n: number; harness: number; trec_eval: number; equal: boolean }[]) : [], stderr: r.stderr };
}

describe('rankings and the TREC export', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject(['eval:', '  datasets:', '    - name: demo', '      path: datasets/demo.jsonl', '  bootstrap: 100', '  permutations: 100']);
    for (const [f, text] of Object.entries(EXTRA)) p.write(f, text);
    fs.mkdirSync(path.join(p.dir, 'datasets'));
    fs.writeFileSync(path.join(p.dir, 'datasets/demo.jsonl'), QUESTIONS.map((q) => JSON.stringify(q)).join('\n') + '\n');
    const indexed = cita(p, ['index', 'demo']);
    expect(indexed.code, indexed.stderr).toBe(0);
  }, 600_000);
  afterAll(() => p.cleanup());

  it('ranking metrics do not move with answer.budget.chunks; context.recall does', { timeout: 600_000 }, async () => {
    const spec = (chunks: number) => ({ label: `budget-${chunks}`, instance: 'demo', overlays: [], overrides: [`answer.budget.chunks=${chunks}`] });
    const { targets, close } = await openTargets([spec(1), spec(12)], p.dir, () => {});
    try {
      const questions = loadDatasets([{ name: 'demo', path: 'datasets/demo.jsonl', format: 'cita' }], p.dir)[0]!.questions;
      const small: QuestionResult[] = [];
      const large: QuestionResult[] = [];
      for (const q of questions) {
        small.push(await evaluateQuestion(targets[0]!, q));
        large.push(await evaluateQuestion(targets[1]!, q));
      }
      expect([...small, ...large].every((r) => !r.error)).toBe(true);
      small.forEach((r, i) => {
        for (const m of RANKING) expect(r.metrics[m], `${r.id} ${m}`).toBe(large[i]!.metrics[m]);
        expect(r.ranked, r.id).toEqual(large[i]!.ranked);
      });
      // The ranking reaches past either context: it holds every file of the larger one.
      expect(small.some((r) => r.ranked.length > 1)).toBe(true);
      for (const r of small) expect(r.contextFiles!.length).toBeLessThanOrEqual(1);
      for (const r of large) expect(r.ranked).toEqual(expect.arrayContaining(r.contextFiles!));
      // The budget does show, where it should: in the context and its recall.
      const recall = (rs: QuestionResult[]) => rs.reduce((s, r) => s + r.metrics['context.recall']!, 0);
      expect(recall(small)).toBeLessThan(recall(large));
      expect(large.some((r) => r.contextFiles!.length > 1)).toBe(true);
    } finally {
      await close();
    }
  });

  it("ask()'s ranking is the order chunks enter the context as its budget grows (fusion.rankingFit: cut)", { timeout: 600_000 }, async () => {
    const { targets, close } = await openTargets([{ label: 'A', instance: 'demo', overlays: [], overrides: ['fusion.rankingFit=cut'] }], p.dir, () => {});
    try {
      const t = targets[0]!;
      const deps = { config: t.config, store: t.store, embedder: t.embedder, generator: t.generator, checkout: t.paths.checkout };
      for (const question of ['How do I change the colour of the output?', 'How are configuration files and plugins loaded?']) {
        const runs = [];
        for (let k = 1; k <= 8; k++) runs.push(await ask(deps, question, { budget: { chunks: k }, retrieveOnly: true }));
        expect(runs.every((r) => r.context.blocks.every((b) => b.scores.via === 'search'))).toBe(true); // no lookups here
        // The ranking's first n chunks are exactly those of the contexts of budget 1..k (n of them):
        // the first k when the slot split only grows with k, a few more when a chunk left on the way.
        const entered = new Set<string>();
        for (const [i, r] of runs.entries()) {
          expect(r.ranking).toEqual(runs[0]!.ranking);
          for (const b of r.context.blocks) entered.add(b.chunk.id);
          expect(entered.size).toBeGreaterThanOrEqual(Math.min(i + 1, r.ranking.chunks.length));
          expect([...entered].sort(), `${question} k=${i + 1}`).toEqual(r.ranking.chunks.slice(0, entered.size).sort());
        }
        expect(runs[0]!.ranking.depth).toBe(RANK_DEPTH);
        expect(runs[0]!.ranking.chunks.length).toBeGreaterThan(3); // several budgets tell something apart
      }
    } finally {
      await close();
    }
  });

  it("by default the ranking's first chunks are the context's at the default budget, whatever the budget", { timeout: 600_000 }, async () => {
    const { targets, close } = await openTargets([{ label: 'A', instance: 'demo', overlays: [], overrides: [] }], p.dir, () => {});
    try {
      const t = targets[0]!;
      const deps = { config: t.config, store: t.store, embedder: t.embedder, generator: t.generator, checkout: t.paths.checkout };
      for (const question of ['How do I change the colour of the output?', 'How are configuration files and plugins loaded?', 'Which function reads a JSON configuration file?']) {
        // Fits are measured on each collection's first 12 hits (the learned route's evidence), as the
        // context of budget 12 measures them, so the split is the same.
        const context = await ask(deps, question, { budget: { chunks: 12 }, retrieveOnly: true });
        const blocks = context.context.blocks.filter((b) => b.scores.via === 'search').map((b) => b.chunk.id);
        expect(blocks.length).toBeGreaterThan(3);
        expect([...blocks].sort(), question).toEqual(context.ranking.chunks.slice(0, blocks.length).sort());
        for (const chunks of [1, 3]) expect((await ask(deps, question, { budget: { chunks }, retrieveOnly: true })).ranking).toEqual(context.ranking);
      }
    } finally {
      await close();
    }
  });

  it("retrieval.hybrid.fileEvidence lifts each file's best hit by its second-best, in ask() as in search", { timeout: 600_000 }, async () => {
    const spec = (lambda: number) => ({ label: `λ${lambda}`, instance: 'demo', overlays: [], overrides: [`retrieval.hybrid.fileEvidence=${lambda}`] });
    const { targets, close } = await openTargets([spec(0), spec(0.5)], p.dir, () => {});
    try {
      const question = 'How do I skip a test on Windows?';
      const [plain, lifted] = await Promise.all(
        targets.map(async (t) => {
          const deps = { config: t.config, store: t.store, embedder: t.embedder, generator: t.generator, checkout: t.paths.checkout };
          const asked = await ask(deps, question, { retrieveOnly: true, keepCandidates: true });
          const searched = await searchCollections(t.store, t.embedder, question, ['docs'], 10, t.config.retrieval.hybrid);
          return { docs: asked.candidates!.deep.docs!, searched: searched.docs! };
        }),
      );
      // The guide has two sections: its best hit gains half the other's score, nothing else moves.
      const guide = plain!.docs.filter((h) => h.chunk.citation.path === 'docs/guide.md');
      expect(guide.length).toBe(2);
      const best = lifted!.docs.find((h) => h.chunk.id === guide[0]!.chunk.id)!;
      expect(best.score).toBeCloseTo(guide[0]!.score + 0.5 * guide[1]!.score, 12);
      expect(lifted!.docs).toEqual(withFileEvidence(plain!.docs, 0.5));
      expect(lifted!.searched).toEqual(withFileEvidence(plain!.searched, 0.5));
    } finally {
      await close();
    }
  });

  it.skipIf(!pip)('cita eval --trec exports each run; trec_eval re-scores it to the harness figures', { timeout: 900_000 }, () => {
    const r = cita(p, ['eval', 'demo', '--set', 'fusion.method=rrf', '--name', 'ab', '--trec', 'trec']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(fs.readFileSync(path.join(p.dir, 'reports/ab.json'), 'utf8')) as Report;
    expect(fs.readdirSync(path.join(p.dir, 'trec')).sort()).toEqual(['ab.A.qrels', 'ab.A.run', 'ab.B.qrels', 'ab.B.run']);
    const run = fs.readFileSync(path.join(p.dir, 'trec/ab.A.run'), 'utf8').trim().split('\n');
    const first = report.runs[0]!.questions[0]!;
    expect(run[0]).toBe(`${first.id} Q0 ${first.ranked[0]} 1 ${first.ranked.length} cita-A`);
    const res = rescore(path.join(p.dir, 'reports/ab.json'), '--trec', path.join(p.dir, 'trec'));
    expect(res.code, res.stderr).toBe(0);
    expect(res.rows.length).toBe(2 * 3 * 5); // runs × (all, en, es) × metrics
    for (const row of res.rows) expect(row, JSON.stringify(row)).toMatchObject({ equal: true, n: row.n });
    expect(res.rows.find((x) => x.run === 'A' && x.lang === 'all' && x.metric === 'file.mrr')!.n).toBe(QUESTIONS.length);
  });

  describe('on a hand-made run that a careless export would get wrong', () => {
    // Deep gold, a gold file outside the ranking, an empty ranking, a duplicate gold entry, a path
    // with a space, an errored question and one without gold (both left out of the files).
    const cases: [string, 'en' | 'es', string[], string[], string?][] = [
      ['q1', 'en', ['a.py', 'b.py', 'c.py', 'd.py', 'e.py', 'f.py', 'g.py'], ['f.py', 'b.py']],
      ['q2', 'en', ['z.py', 'y.py', 'x.py'], ['x.py', 'nowhere.py']],
      ['q3', 'es', [], ['a.py']],
      ['q4', 'es', ['my docs/a b.md', 'c.md'], ['my docs/a b.md', 'my docs/a b.md']],
      ['q5', 'es', Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}.py`), ['f00.py', 'f12.py', 'f29.py']],
      ['q6', 'en', ['a.py'], ['a.py'], 'boom'],
      ['q7', 'en', ['a.py'], []],
    ];
    const questions: QuestionResult[] = cases.map(([id, lang, ranked, gold, error]) => {
      const has = gold.length > 0 && !error;
      const metrics = {
        'file.recall@5': has ? recallAtK(ranked, gold, 5) : null,
        'file.recall@10': has ? recallAtK(ranked, gold, 10) : null,
        'file.acc@1': has ? accuracyAt1(ranked, gold) : null,
        'file.mrr': has ? reciprocalRank(ranked, gold) : null,
        'file.ndcg@10': has ? ndcgAtK(ranked, gold, 10) : null,
      };
      return {
        id, dataset: 'd', lang, kind: 'k', expectedSource: 'code', question: 'q', gold: { files: gold, issues: [] }, metrics,
        route: { top: 'code', weights: { docs: 0, code: 1, issues: 0 } }, slots: { docs: 0, code: 1, issues: 0 }, ranked, latency: {}, ...(error ? { error } : {}),
      };
    });
    const run = { label: 'A', questions, aggregates: aggregate(questions, Object.keys(questions[0]!.metrics), stats) } as unknown as RunReport;

    it('writes strictly falling scores, encoded whitespace, and only the scored questions', () => {
      const lines = trecRun(run).trim().split('\n');
      expect(lines.filter((l) => l.startsWith('q1 '))).toEqual(['a.py', 'b.py', 'c.py', 'd.py', 'e.py', 'f.py', 'g.py'].map((f, i) => `q1 Q0 ${f} ${i + 1} ${7 - i} cita-A`));
      expect(lines.filter((l) => l.startsWith('q4 '))).toEqual(['q4 Q0 my%20docs/a%20b.md 1 2 cita-A', 'q4 Q0 c.md 2 1 cita-A']);
      expect(new Set(lines.map((l) => l.split(' ')[0]))).toEqual(new Set(['q1', 'q2', 'q4', 'q5']));
      expect(trecQrels(run).trim().split('\n').filter((l) => /^q[34] /.test(l))).toEqual(['q3 0 a.py 1', 'q4 0 my%20docs/a%20b.md 1']);
    });

    it.skipIf(!pip)('trec_eval gives the harness figures on it', { timeout: 600_000 }, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-trec-'));
      try {
        fs.writeFileSync(path.join(dir, 'hand.json'), JSON.stringify({ runs: [run] }));
        expect(writeTrec({ runs: [run] } as unknown as Report, dir, 'hand')).toEqual([path.join(dir, 'hand.A.run'), path.join(dir, 'hand.A.qrels')]);
        const res = rescore(path.join(dir, 'hand.json'));
        expect(res.code, res.stderr).toBe(0);
        expect(res.rows.map((x) => `${x.lang} ${x.metric} ${x.n}`)).toContain('all file.mrr 5');
        for (const row of res.rows) expect(row.equal, JSON.stringify(row)).toBe(true);
        // A figure that disagrees is caught: the harness's MRR nudged.
        const off = { ...run, aggregates: run.aggregates.map((a) => (a.metric === 'file.mrr' && !a.group.lang ? { ...a, mean: a.mean + 1e-6 } : a)) };
        fs.writeFileSync(path.join(dir, 'hand.json'), JSON.stringify({ runs: [off] }));
        const bad = rescore(path.join(dir, 'hand.json'));
        expect(bad.code).toBe(1);
        expect(bad.rows.filter((x) => !x.equal).map((x) => `${x.lang} ${x.metric}`)).toEqual(['all file.mrr']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
