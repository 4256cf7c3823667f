/**
 * Calibrates the extractive generator's options (by default its relevance threshold,
 * `answer.generator.minRelevance`): retrieves each question once through `ask()` (the same path as
 * `cita ask`), scores the context's sentences by meaning once, then answers with the very
 * `extractiveAnswer` the generator runs under each setting of the sweep, and prints per language:
 * answered, answered right (a cited block is a gold file), reference quoted (the answer holds the
 * line of a gold page that says the answer: eval/metrics/referenceQuoted.ts) and the share of the files
 * an answer cites that are gold (`answer.citedGold`, its precision) on answerable questions, abstention
 * on unanswerable ones, and how many answers to how-to questions show a code line (and how many of those lines come
 * from a gold page). Several instances are pooled (their questions side by side).
 *
 *   node --import tsx eval/calibrate-extractive.ts <instance>… [--split dev] [--dataset name]… [--set k=v]…
 *     [--sweep minRelevance=0.84,0.86] [--sweep maxSentences=3,4]…   (every combination of the sweeps)
 */
import { parseArgs } from 'node:util';
import { loadDatasets, type EvalQuestion } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { parseMarkers } from '../pipeline/answer/citations.ts';
import { EXTRACTIVE_DEFAULTS, ExtractiveGenerator, extractiveAnswer, isCodeQuestion, quoteCandidates, type ExtractiveOptions } from '../pipeline/answer/generators/extractive.ts';
import { extractiveOptions } from '../pipeline/answer/generators/index.ts';
import type { Context } from '../pipeline/answer/types.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { citedGoldShare } from './metrics/citedGold.ts';
import { referenceQuoted } from './metrics/referenceQuoted.ts';
import { median } from './stats/median.ts';
import { openTargets } from './target.ts';

const GRID = 'minRelevance=0.8,0.82,0.84,0.85,0.86,0.87,0.88,0.89,0.9,0.92';

interface Row {
  q: EvalQuestion;
  /** Its instance's configured options (`--set answer.generator.…` included); the sweeps are applied over them. */
  options: ExtractiveOptions;
  context: Context;
  meaning: Awaited<ReturnType<ExtractiveGenerator['meaningFor']>>;
}

type Setting = Record<string, number | string>;

/** Every combination of the sweeps (`key=v1,v2`); numbers where the value reads as one. */
export function settingsOf(sweeps: readonly string[]): Setting[] {
  let settings: Setting[] = [{}];
  for (const sweep of sweeps) {
    const at = sweep.indexOf('=');
    if (at <= 0) throw new Error(`--sweep: expected key=v1,v2…, got ${JSON.stringify(sweep)}`);
    const key = sweep.slice(0, at);
    const values = sweep.slice(at + 1).split(',').filter((v) => v !== '').map((v) => (Number.isFinite(Number(v)) ? Number(v) : v));
    settings = settings.flatMap((s) => values.map((v) => ({ ...s, [key]: v })));
  }
  return settings;
}

/**
 * Options that change how the sentences are scored (`ExtractiveGenerator.meaningFor` reads them): the
 * replay scores each question's sentences once, with the instance's options, so under a swept value
 * of one of these the rows would not score what it changes. They are compared with `--set`, one run per value.
 */
const SCORED_ONCE = ['meaningQuery', 'semanticBlocks', 'maxChars', 'rstBodies', 'literals'];

/** Throws for a sweep the replay cannot honour (see SCORED_ONCE). */
export function checkReplayable(settings: readonly Setting[]): void {
  const keys = SCORED_ONCE.filter((k) => settings.some((s) => k in s));
  if (keys.length) throw new Error(`--sweep ${keys.join(', ')}: the replay scores the sentences once, with the instance's options; compare with --set, one run per value`);
}

function parseArguments() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      split: { type: 'string' },
      dataset: { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
      sweep: { type: 'string', multiple: true, default: [] },
    },
  });
  if (positionals.length === 0) throw new Error('usage: calibrate-extractive.ts <instance>… [--split dev|test] [--dataset name]… [--set k=v]… [--sweep key=v1,v2]…');
  if (values.split !== undefined && values.split !== 'dev' && values.split !== 'test') throw new Error(`--split: expected dev or test, got ${JSON.stringify(values.split)}`);
  return { instances: positionals, split: values.split, datasets: values.dataset, sets: values.set, sweeps: values.sweep.length ? values.sweep : [GRID] };
}

async function main(): Promise<void> {
  const args = parseArguments();
  // Before the questions are retrieved (minutes), not after.
  const settings = settingsOf(args.sweeps);
  checkReplayable(settings);
  const root = findRoot();
  const rows: Row[] = [];
  for (const instance of args.instances) {
    const { targets, close } = await openTargets([{ label: 'calibration', instance, overlays: [], overrides: args.sets }], root, (m) => process.stderr.write(`${m}\n`));
    try {
      const t = targets[0]!;
      const questions = loadDatasets(t.config.eval.datasets, root)
        .filter((d) => args.datasets.length === 0 || args.datasets.includes(d.name))
        .flatMap((d) => d.questions)
        .filter((q) => !args.split || q.split === args.split);
      const options = extractiveOptions(t.config.answer.generator);
      const generator = new ExtractiveGenerator(options, t.embedder);
      let done = 0;
      for (const q of questions) {
        const r = await ask({ config: t.config, store: t.store, embedder: t.embedder, generator, checkout: t.paths.checkout, translator: t.translator }, q.question, { retrieveOnly: true });
        rows.push({ q, options, context: r.context, meaning: await generator.meaningFor(q.question, r.context) });
        process.stderr.write(`\r${instance}: ${++done}/${questions.length}`);
      }
      process.stderr.write('\n');
    } finally {
      await close();
    }
  }
  console.log(`${args.instances.join(' + ')}: ${rows.length} questions${args.split ? ` (split ${args.split})` : ''}`);
  // The ceiling of "reference quoted": the line is among the sentences the generator may quote; and
  // where it is, how the model ranks it among them (by cosine with the question).
  for (const lang of ['en', 'es'] as const) {
    const withReference = rows.filter((r) => r.q.lang === lang && r.q.gold.answerable !== false && r.q.reference);
    const ranks: number[] = [];
    const gaps: number[] = [];
    for (const r of withReference) {
      const scored = quoteCandidates(r.context, isCodeQuestion(r.q.question), r.options.maxChars, { ...EXTRACTIVE_DEFAULTS, ...r.options })
        .map((c) => ({ quote: c.quote, cosine: r.meaning(c) ?? -Infinity }))
        .sort((a, b) => b.cosine - a.cosine);
      const at = scored.findIndex((c) => referenceQuoted(c.quote, r.q.reference!) === 1);
      if (at < 0) continue;
      ranks.push(at + 1);
      gaps.push(scored[0]!.cosine - scored[at]!.cosine);
    }
    console.log(
      `${lang}: the reference line is one of the context's quotable sentences for ${ranks.length}/${withReference.length};` +
        ` of those, it is the closest to the question for ${ranks.filter((k) => k === 1).length}, among the 4 closest for ${ranks.filter((k) => k <= 4).length}` +
        ` (median cosine below the closest: ${median(gaps).toFixed(3)})`,
    );
  }
  console.log('| setting | lang | answered (answerable) | answered right | first cited file right | reference quoted | cited files gold | how-to: code line shown (from a gold page) | abstained (unanswerable) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const setting of settings) {
    for (const lang of ['en', 'es'] as const) {
      const n = { answerable: 0, answered: 0, right: 0, first: 0, referenced: 0, quoted: 0, unanswerable: 0, abstained: 0, citing: 0, gold: 0, howTo: 0, code: 0, goldCode: 0 };
      for (const { q, options, context, meaning } of rows.filter((r) => r.q.lang === lang)) {
        const a = extractiveAnswer(q.question, context, { ...options, ...setting } as ExtractiveOptions, meaning);
        // In order of first citation.
        const cited = new Set(parseMarkers(a.text).map((m) => context.blocks[m - 1]?.citation.path));
        if (q.gold.answerable === false) {
          n.unanswerable++;
          if (a.noAnswer) n.abstained++;
          continue;
        }
        n.answerable++;
        if (!a.noAnswer) n.answered++;
        if (!a.noAnswer && q.gold.files.some((f) => cited.has(f))) n.right++;
        // The files it cites, in order, issues skipped: the first (answer.firstFile) and their precision (answer.citedGold).
        const files = [...cited].filter((f): f is string => f !== undefined && !f.startsWith('#'));
        if (!a.noAnswer && files[0] !== undefined && q.gold.files.includes(files[0])) n.first++;
        const precision = citedGoldShare(files, q.gold.files);
        if (!a.noAnswer && q.gold.files.length > 0 && precision !== undefined) {
          n.citing++;
          n.gold += precision;
        }
        // A how-to answer's code line (`- \`line\` [n]`, extractiveAnswer's howToCommand), and whether its page is gold.
        if (q.kind === 'how-to' && !a.noAnswer) {
          n.howTo++;
          const code = /^- `[^`]+` \[(\d+)\]$/m.exec(a.text);
          if (code) {
            n.code++;
            if (q.gold.files.includes(context.blocks[Number(code[1]) - 1]?.citation.path ?? '')) n.goldCode++;
          }
        }
        if (q.reference) {
          n.referenced++;
          if (!a.noAnswer) n.quoted += referenceQuoted(a.text, q.reference);
        }
      }
      const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)}% (${x}/${of})` : '–');
      const label = Object.entries(setting).map(([k, v]) => `${k}=${v}`).join(' ');
      const share = n.citing ? `${((100 * n.gold) / n.citing).toFixed(1)}% (${n.citing})` : '–';
      console.log(`| ${label} | ${lang} | ${pct(n.answered, n.answerable)} | ${pct(n.right, n.answerable)} | ${pct(n.first, n.answerable)} | ${pct(n.quoted, n.referenced)} | ${share} | ${pct(n.code, n.howTo)} (${n.goldCode}) | ${pct(n.abstained, n.unanswerable)} |`);
    }
  }
}

if (process.argv[1]?.endsWith('eval/calibrate-extractive.ts')) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
