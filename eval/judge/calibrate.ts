/**
 * Prints a judge's calibration table (accuracy per trap type × language) on
 * datasets/judge-calibration.jsonl, for the tuning half (odd ids), the held-out half (even ids) and
 * all items. Usage: `node --import tsx eval/judge/calibrate.ts [--verbose]`.
 */
import { OfflineSupportJudge } from './offline.ts';
import { calibrationSplit, calibrationTable, formatCalibrationTable, judgeCalibration, loadCalibration } from './calibration.ts';
import type { Judge } from './types.ts';

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const items = loadCalibration();
  const judges: Judge[] = [new OfflineSupportJudge()];
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
}

await main();
