import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes `data` as JSON under a temporary name beside `file`, then renames it into place: a reader
 * (another cita process) sees the old file or the new one, never half of one.
 */
export function writeJsonAtomic(file: string, data: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  fs.renameSync(tmp, file);
}
