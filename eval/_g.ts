import { loadConfig, findRoot } from '../pipeline/config/load.ts';
import { translatorFor } from '../pipeline/text/translate.ts';
import { glossChoicesFor } from '../pipeline/answer/glosses.ts';
const root = findRoot();
const { config } = loadConfig('pytest', { root } as any) as any;
const t = translatorFor(config.languages.translator)!;
const choices = glossChoicesFor(config);
const texts = process.argv.slice(2);
for (const s of texts) {
  const a = await t.translate(s, 'en', 'es', [], choices);
  const b = await t.translate(s, 'en', 'es', ['variables', 'Variables', 'test', 'tests', 'Test', 'Tests'], choices);
  const c = await t.translate(`To ${s}`, "en", "es", [], choices);
  const d = await t.translate(`To ${s}`, "en", "es", ["tests","test"], choices);
  console.log("  To+keep: " + d);
  console.log(`${s}\n  plain: ${a}\n  keep:  ${b}\n  To:    ${c}`);
}
const an = await t.analyse!(['show', 'hide', 'stop', 'run', 'install', 'the', 'enable', 'disable', 'verbose', 'only'], 'en', 'es');
console.log(an);
(t as any).close?.();
process.exit(0);
