import { execFileSync } from 'node:child_process';
import { it } from 'vitest';

/** Whether `apertium -l` lists the mode (`spa-eng`, `eng-spa`). */
function hasMode(mode: string): boolean {
  try {
    return new RegExp(`\\b${mode}\\b`).test(execFileSync('apertium', ['-l'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return false;
  }
}

/**
 * `it` for a test that needs Apertium's `mode`: skipped where it is not installed, except in CI, where
 * `npm run setup` installs it and a missing translator must fail the suite, not skip it.
 */
export function apertiumTest(mode: string) {
  return hasMode(mode) || process.env.CI === 'true' ? it : it.skip;
}
