import fs from 'node:fs';
import path from 'node:path';
import { root } from './paths.ts';

/** Real reports of this repository, copied into a project's reports/. */
export function copyReports(projectDir: string, names = ['baseline', 'ab-fusion', 'visible-vs-baseline', 'test-pytest-crosslingual']): void {
  const dir = path.join(projectDir, 'reports');
  fs.mkdirSync(dir, { recursive: true });
  for (const n of names)
    for (const ext of ['html', 'md', 'json']) {
      const from = path.join(root, 'reports', `${n}.${ext}`);
      if (fs.existsSync(from)) fs.copyFileSync(from, path.join(dir, `${n}.${ext}`));
    }
}
