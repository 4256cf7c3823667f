/**
 * Whether choosing among Apertium's dictionary translations by the software catalogs (pipeline/text/lexicalSelection.ts)
 * makes better translations, in either direction:
 *
 * - `en-es` (glosses, `answer.glossSenses: catalogs`) and `es-en` (questions, `retrieval.crossLingual.translatorSenses:
 *   catalogs`), on the catalogs themselves: for each pinned package (pipeline/text/lexicon/catalogs.ts) in turn, the
 *   choices are made from the other packages alone (leave one package out) and up to `--per-package` of its one-line
 *   messages (four words or more, no markup) are translated with and without them, scored against the package's own
 *   human translation (its Spanish, or its English message);
 * - `es-en` also on the Spanish docs questions of cita's datasets (`--split`), translated with and without the choices
 *   made from every package, scored against their English twins (which are not translations, but say the same).
 *
 * `--imperatives prose|comment` (en-es): the messages glossed with the choices as before against the same with an
 * imperative opening glossed as an infinitive (`answer.glossImperatives`; `comment`: every message read as a command's
 * comment, `prose`: as a quoted sentence) — the catalogs' messages are terse instructions (`show this help`), as
 * comments are, and their translators write them as infinitives (`mostrar esta ayuda`).
 *
 * chrF (eval/metrics/chrF.ts), corpus and per text (paired permutation test, bootstrap interval).
 *
 *   node --import tsx eval/catalogChoices.ts [--direction en-es|es-en] [--per-package 60] [--split dev|test] [--imperatives prose|comment] [--show]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDatasets } from '../datasets/questions.ts';
import { glossText } from '../pipeline/answer/glosses.ts';
import { findRoot, loadConfig } from '../pipeline/config/load.ts';
import { catalogPairs, SOURCES } from '../pipeline/text/lexicon/catalogs.ts';
import { catalogChoices } from '../pipeline/text/lexicon/lexicon.ts';
import type { MessagePair } from '../pipeline/text/lexicon/mo.ts';
import { ApertiumTranslator, type Language } from '../pipeline/text/translate.ts';
import { chrf, corpusChrf } from './metrics/chrF.ts';
import { comparePaired } from './stats/index.ts';

const INSTANCES = ['pytest', 'black', 'flask', 'click', 'scrapy'];

const { values } = parseArgs({
  options: {
    direction: { type: 'string', default: 'en-es' },
    'per-package': { type: 'string', default: '60' },
    split: { type: 'string', default: 'dev' },
    imperatives: { type: 'string' },
    show: { type: 'boolean', default: false },
  },
});
if (values.direction !== 'en-es' && values.direction !== 'es-en') throw new Error(`--direction: en-es or es-en, got ${values.direction}`);
const imperatives = values.imperatives;
if (imperatives !== undefined && (values.direction !== 'en-es' || !['prose', 'comment'].includes(imperatives))) throw new Error('--imperatives: prose or comment, with --direction en-es');
const [from, to] = values.direction.split('-') as [Language, Language];
const perPackage = Number(values['per-package']);
const root = findRoot();
const cache = path.join(root, '.cita/cache/lexicon');
const byPackage = new Map(SOURCES.map((s) => [s.name, catalogPairs(cache, () => {}, [s])] as const));
// Accelerator marks out (`&Open`, `_Save`); a message with placeholders, markup or several lines is not one sentence.
const clean = (t: string) => t.replace(/[&_](?=\p{L})/gu, '').trim();
const usable = (m: MessagePair) => !/[\n\t%{}<>\\]/.test(m.source + m.translation) && m.source.split(/\s+/).length >= 4 && m.source.length <= 200;

interface Row {
  plain: string;
  chosen: string;
  reference: string;
}

function summary(label: string, rows: readonly Row[]): void {
  const before = corpusChrf(rows.map((r) => ({ hypothesis: r.plain, reference: r.reference })));
  const after = corpusChrf(rows.map((r) => ({ hypothesis: r.chosen, reference: r.reference })));
  const c = comparePaired(rows.map((r) => [chrf(r.plain, r.reference), chrf(r.chosen, r.reference)] as const), { seed: 'catalog-choices', permutations: 10000, bootstrap: 2000 })!;
  const better = rows.filter((r) => chrf(r.chosen, r.reference) > chrf(r.plain, r.reference)).length;
  const worse = rows.filter((r) => chrf(r.chosen, r.reference) < chrf(r.plain, r.reference)).length;
  console.log(`${label}: ${rows.length} texts, ${rows.filter((r) => r.plain !== r.chosen).length} translated differently`);
  console.log(`  chrF ${before.toFixed(1)} → ${after.toFixed(1)}; per text ${c.diff >= 0 ? '+' : ''}${c.diff.toFixed(2)} [${c.low.toFixed(2)}, ${c.high.toFixed(2)}], p = ${c.p.toFixed(4)}; ${better} better, ${worse} worse`);
}

const translator = new ApertiumTranslator({});
try {
  const rows: Row[] = [];
  for (const [name, pairs] of byPackage) {
    const others = [...byPackage].filter(([n]) => n !== name).flatMap(([, p]) => p);
    const choices = await catalogChoices(others, translator, from, to);
    const test = pairs.filter(usable);
    // Spread over the package's catalog, not its first messages.
    const step = Math.max(1, Math.floor(test.length / perPackage));
    for (const m of test.filter((_, i) => i % step === 0).slice(0, perPackage)) {
      const [source, reference] = from === 'en' ? [clean(m.source), clean(m.translation)] : [clean(m.translation), clean(m.source)];
      // With --imperatives, "plain" is the gloss as made before: the choices, the opening as written.
      const plain = imperatives ? await translator.translate(source, from, to, [], choices) : await translator.translate(source, from, to);
      const chosen = imperatives ? await glossText(source, imperatives === 'comment', translator, from, to, [], choices, 'infinitive') : await translator.translate(source, from, to, [], choices);
      rows.push({ plain, chosen, reference });
      if (values.show && plain !== chosen) console.log(`${name}: ${source}\n  human   ${reference}\n  before  ${plain}\n  after   ${chosen}`);
    }
    process.stderr.write(`${name}: ${Object.keys(choices).length} choices from the other packages\n`);
  }
  summary(`${values.direction}, the catalogs' one-line messages, each package with the others' choices${imperatives ? `; imperative openings as infinitives (read as ${imperatives})` : ''}`, rows);

  if (from === 'es') {
    const choices = await catalogChoices([...byPackage.values()].flat(), translator, from, to);
    const questions: Row[] = [];
    for (const instance of INSTANCES) {
      const { config } = loadConfig(instance, { root });
      const qs = loadDatasets(config.eval.datasets, root)
        .filter((d) => d.name === `${instance}-docs`)
        .flatMap((d) => d.questions)
        .filter((q) => q.split === values.split);
      const twins = new Map(qs.filter((q) => q.lang === 'en').map((q) => [q.pair, q.question]));
      for (const q of qs.filter((x) => x.lang === 'es' && twins.has(x.pair))) {
        const plain = await translator.translate(q.question, 'es', 'en');
        const chosen = await translator.translate(q.question, 'es', 'en', [], choices);
        questions.push({ plain, chosen, reference: twins.get(q.pair)! });
        if (values.show && plain !== chosen) console.log(`${q.id}: ${q.question}\n  twin    ${twins.get(q.pair)}\n  before  ${plain}\n  after   ${chosen}`);
      }
    }
    summary(`es-en, the five repositories' Spanish docs questions (${values.split}) against their English twins, every package's choices`, questions);
  }
} finally {
  await translator.close();
}
process.exit(0);
