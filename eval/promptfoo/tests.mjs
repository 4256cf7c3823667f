/**
 * promptfoo test cases from the instance's evaluation datasets (`eval.datasets` in
 * config/instances/<instance>.yaml; for pytest, ../shared/datasets/pytest/issue-localization.jsonl
 * and code-qa.jsonl), validated by cita's own loaders (datasets/shared.ts).
 *
 * Environment:
 *   CITA_INSTANCE            instance, default `pytest`
 *   CITA_PROMPTFOO_SAMPLE    questions to ask: a number (default 20, half English and half Spanish,
 *                            spread evenly over datasets and kinds) or `all`
 *   CITA_PROMPTFOO_DATASETS  comma-separated dataset names to keep (default: all of the config's)
 *   CITA_PROMPTFOO_LANGS     comma-separated languages to keep (default: en,es)
 *   CITA_JUDGE_PROVIDER      a promptfoo provider id for model-graded assertions, e.g.
 *                            `openai:chat:gpt-4o-mini` or `ollama:chat:qwen2.5:7b`; when unset and
 *                            OPENAI_API_KEY is set, `openai:chat:<CITA_JUDGE_MODEL or gpt-4o-mini>`
 *                            (OPENAI_BASE_URL points it at any OpenAI-compatible server).
 *                            With neither, no model-graded assertion is added: the run stays offline.
 */
import path from 'node:path';
import { importCita, ROOT } from './citaProvider.mjs';

const splitList = (s) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** The promptfoo provider that grades, or undefined when none is configured (offline run). */
export function judgeProvider(env = process.env) {
  if (env.CITA_JUDGE_PROVIDER) return env.CITA_JUDGE_PROVIDER;
  if (env.OPENAI_API_KEY) return `openai:chat:${env.CITA_JUDGE_MODEL || 'gpt-4o-mini'}`;
  return undefined;
}

/** `n` indices spread evenly over `0..len-1` (the middle of each of `n` equal slices). */
function spread(len, n) {
  const out = [];
  for (let i = 0; i < Math.min(n, len); i++) out.push(Math.floor(((i + 0.5) * len) / Math.min(n, len)));
  return out;
}

/**
 * A deterministic sample: `n` questions split between the languages (the first gets the odd one),
 * each language's share dealt round-robin over its strata (dataset × kind), each stratum sampled
 * evenly over its records. The same sample on every run, so two runs compare question by question.
 */
export function sample(records, n, langs) {
  if (!Number.isFinite(n)) return records;
  const out = [];
  langs.forEach((lang, li) => {
    const share = Math.floor(n / langs.length) + (li < n % langs.length ? 1 : 0);
    const strata = new Map();
    for (const r of records.filter((r) => r.lang === lang)) {
      const key = `${r.dataset}/${r.kind}`;
      if (!strata.has(key)) strata.set(key, []);
      strata.get(key).push(r);
    }
    const groups = [...strata.values()];
    const quota = groups.map(() => 0);
    for (let i = 0, left = share; left > 0 && groups.some((g, gi) => quota[gi] < g.length); i++) {
      const gi = i % groups.length;
      if (quota[gi] < groups[gi].length) {
        quota[gi]++;
        left--;
      }
    }
    groups.forEach((g, gi) => out.push(...spread(g.length, quota[gi]).map((i) => g[i])));
  });
  return out;
}

/**
 * Model-graded assertions, only when a judge is configured. Each runs through
 * assertions.mjs:judgedUnlessNoAnswer, so an explicit no-answer (no claim) is not sent to the judge.
 */
function judgeAssertions(record, judge) {
  if (!judge) return [];
  const judged = (metric, assertion) => ({
    type: 'javascript',
    value: 'file://assertions.mjs:judgedUnlessNoAnswer',
    metric,
    config: { assertion: { ...assertion, provider: judge } },
  });
  const rubric =
    'The answer either addresses the question with content from the pytest sources, or states plainly that the sources hold no answer. It must not invent APIs, files or behaviour.';
  const asserts = [
    // The judge reads exactly the blocks the generator read (DESIGN lesson 5), not a context of its own.
    judged('judge: claims supported by the generator context', { type: 'context-faithfulness', contextTransform: 'context.metadata.contextBlocks', threshold: 0.7 }),
    judged('judge: answer relevant, no invented facts', {
      type: 'llm-rubric',
      value: record.lang === 'es' ? `The question is in Spanish; quotes of English sources are fine. ${rubric}` : rubric,
    }),
  ];
  if (record.reference) asserts.push(judged('judge: consistent with the reference answer', { type: 'factuality', value: record.reference }));
  return asserts;
}

/** promptfoo calls this with the `config` of `tests:` in promptfooconfig.yaml. */
export default async function generateTests(config = {}) {
  const instance = process.env.CITA_INSTANCE ?? config.instance ?? 'pytest';
  const rawSample = process.env.CITA_PROMPTFOO_SAMPLE ?? String(config.sample ?? 20);
  const n = rawSample === 'all' || rawSample === '0' ? Infinity : Number(rawSample);
  if (!(n === Infinity || (Number.isInteger(n) && n > 0))) throw new Error(`CITA_PROMPTFOO_SAMPLE: expected a positive integer or "all", got "${rawSample}"`);
  const langs = splitList(process.env.CITA_PROMPTFOO_LANGS ?? 'en,es');
  const only = splitList(process.env.CITA_PROMPTFOO_DATASETS);

  const { loadConfig } = await importCita('pipeline/config/load.ts');
  const { loadJsonl, localizationRecord, codeQaRecord } = await importCita('datasets/shared.ts');
  const { config: cita } = loadConfig(instance, { root: ROOT });
  const datasets = cita.eval.datasets.filter((d) => only.length === 0 || only.includes(d.name));
  if (datasets.length === 0) throw new Error(`instance ${instance}: no datasets to evaluate (eval.datasets in config/instances/${instance}.yaml${only.length ? `, filtered by CITA_PROMPTFOO_DATASETS=${only.join(',')}` : ''})`);

  const records = [];
  for (const d of datasets) {
    const file = path.resolve(ROOT, d.path);
    if (d.format === 'localization') {
      for (const r of loadJsonl(file, localizationRecord))
        records.push({ dataset: d.name, id: r.id, lang: r.lang, kind: r.kind, question: r.question, goldFiles: r.gold_files_at_tag, issue: r.issue });
    } else if (d.format === 'code-qa') {
      for (const r of loadJsonl(file, codeQaRecord))
        records.push({ dataset: d.name, id: r.id, lang: r.lang, kind: r.kind, question: r.question, goldFiles: r.gold_files, reference: r.answer.replace(/<\/start_of_answer>\s*$/, '').trim() });
    } else {
      process.stderr.write(`tests.mjs: dataset ${d.name} has format "${d.format}", which this suite does not read; skipped\n`);
    }
  }
  const chosen = sample(records.filter((r) => langs.includes(r.lang)), n, langs);
  const judge = judgeProvider();
  process.stderr.write(
    `tests.mjs: ${chosen.length} of ${records.length} questions from ${datasets.map((d) => d.name).join(', ')} (${langs.map((l) => `${l} ${chosen.filter((r) => r.lang === l).length}`).join(', ')}); model-graded assertions: ${judge ? `on, judge ${judge}` : 'off (no CITA_JUDGE_PROVIDER or OPENAI_API_KEY)'}\n`,
  );

  return chosen.map((r) => ({
    description: `${r.id} (${r.lang}, ${r.dataset}/${r.kind})`,
    vars: {
      query: r.question,
      id: r.id,
      lang: r.lang,
      kind: r.kind,
      gold_files: r.goldFiles.join(', '),
    },
    // Kept out of `vars`: arrays there would be expanded into one test per element.
    metadata: { id: r.id, lang: r.lang, dataset: r.dataset, kind: r.kind, goldFiles: r.goldFiles, ...(r.issue ? { issue: r.issue } : {}) },
    options: { disableVarExpansion: true, ...(judge ? { provider: judge } : {}) },
    assert: judgeAssertions(r, judge),
  }));
}
