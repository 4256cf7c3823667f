/**
 * Whether choosing among Apertium's dictionary translations by the software catalogs (pipeline/text/lexicalSelection.ts,
 * `answer.glossSenses: catalogs`) makes better glosses of English text into Spanish: for each pinned catalog package
 * (pipeline/text/lexicon/catalogs.ts) in turn, the choices are made from the other packages alone (leave one package
 * out) and up to `--per-package` of its one-line messages (four words or more, no markup) are translated `eng-spa`
 * with and without them; chrF of each against the package's own human translation (eval/metrics/chrF.ts), corpus and
 * per message (paired permutation test, bootstrap interval), and the choices that changed a message most often.
 *
 *   node --import tsx eval/glossSenses.ts [--per-package 60] [--show]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findRoot } from '../pipeline/config/load.ts';
import { catalogPairs, SOURCES } from '../pipeline/text/lexicon/catalogs.ts';
import { catalogChoices } from '../pipeline/text/lexicon/lexicon.ts';
import type { MessagePair } from '../pipeline/text/lexicon/mo.ts';
import { ApertiumTranslator } from '../pipeline/text/translate.ts';
import { chrf, corpusChrf } from './metrics/chrF.ts';
import { comparePaired } from './stats/index.ts';

const { values } = parseArgs({ options: { 'per-package': { type: 'string', default: '60' }, show: { type: 'boolean', default: false } } });
const perPackage = Number(values['per-package']);
const cache = path.join(findRoot(), '.cita/cache/lexicon');
const byPackage = new Map(SOURCES.map((s) => [s.name, catalogPairs(cache, () => {}, [s])] as const));
// Accelerator marks out (`&Open`, `_Save`); a message with placeholders, markup or several lines is not one sentence.
const clean = (t: string) => t.replace(/[&_](?=\p{L})/gu, '').trim();
const usable = (m: MessagePair) => !/[\n\t%{}<>\\]/.test(m.source + m.translation) && m.source.split(/\s+/).length >= 4 && m.source.length <= 200;

const translator = new ApertiumTranslator({});
const rows: { plain: string; chosen: string; reference: string }[] = [];
const applied = new Map<string, number>();
try {
  for (const [name, pairs] of byPackage) {
    const others = [...byPackage].filter(([n]) => n !== name).flatMap(([, p]) => p);
    const choices = await catalogChoices(others, translator);
    const test = pairs.filter(usable);
    // Spread over the package's catalog, not its first messages.
    const step = Math.max(1, Math.floor(test.length / perPackage));
    const sample = test.filter((_, i) => i % step === 0).slice(0, perPackage);
    for (const m of sample) {
      const source = clean(m.source);
      const plain = await translator.translate(source, 'en', 'es');
      const chosen = await translator.translate(source, 'en', 'es', [], choices);
      rows.push({ plain, chosen, reference: clean(m.translation) });
      if (plain !== chosen) {
        for (const [key, lemma] of Object.entries(choices)) if (chosen.toLowerCase().includes(lemma.slice(0, -1)) && !plain.toLowerCase().includes(lemma.slice(0, -1))) applied.set(`${key} → ${lemma}`, (applied.get(`${key} → ${lemma}`) ?? 0) + 1);
        if (values.show) console.log(`${name}: ${source}\n  human   ${clean(m.translation)}\n  before  ${plain}\n  after   ${chosen}`);
      }
    }
    process.stderr.write(`${name}: ${sample.length} messages, ${Object.keys(choices).length} choices from the other packages\n`);
  }
} finally {
  await translator.close();
}
const before = corpusChrf(rows.map((r) => ({ hypothesis: r.plain, reference: r.reference })));
const after = corpusChrf(rows.map((r) => ({ hypothesis: r.chosen, reference: r.reference })));
const c = comparePaired(rows.map((r) => [chrf(r.plain, r.reference), chrf(r.chosen, r.reference)] as const), { seed: 'gloss-senses', permutations: 10000, bootstrap: 2000 })!;
const better = rows.filter((r) => chrf(r.chosen, r.reference) > chrf(r.plain, r.reference)).length;
const worse = rows.filter((r) => chrf(r.chosen, r.reference) < chrf(r.plain, r.reference)).length;
console.log(`${rows.length} messages of ${byPackage.size} packages, ${rows.filter((r) => r.plain !== r.chosen).length} glossed differently with the other packages' choices`);
console.log(`chrF ${before.toFixed(1)} → ${after.toFixed(1)}; per message ${c.diff >= 0 ? '+' : ''}${c.diff.toFixed(2)} [${c.low.toFixed(2)}, ${c.high.toFixed(2)}], p = ${c.p.toFixed(4)}; ${better} better, ${worse} worse`);
console.log(`choices whose word a changed gloss holds (and the plain one not), most often first: ${[...applied].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, n]) => `${k} ×${n}`).join(', ')}`);
process.exit(0);
