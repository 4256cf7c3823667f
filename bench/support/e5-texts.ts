/**
 * Real texts for the e5 runtime benches (#14): chunks of the pytest index (read-only) and the
 * questions of the visible datasets, English and Spanish.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface BenchText {
  group: string;
  kind: 'query' | 'passage';
  text: string;
}

/** `n` chunks spread evenly over the index (every k-th by insertion order), as passages. */
export function pytestChunks(indexFile: string, n: number): BenchText[] {
  if (!fs.existsSync(indexFile))
    throw new Error(`${indexFile} not found: index pytest first (\`cita index pytest\`), or link the shared index (ln -s /work/main/.cita/pytest .cita/pytest)`);
  const db = new Database(indexFile, { readonly: true, fileMustExist: true });
  try {
    const all = db.prepare('SELECT text FROM chunks ORDER BY seq').pluck().all() as string[];
    const step = all.length / Math.min(n, all.length);
    return Array.from({ length: Math.min(n, all.length) }, (_, i) => ({ group: 'pytest chunks', kind: 'passage' as const, text: all[Math.floor(i * step)]! }));
  } finally {
    db.close();
  }
}

/** Every question of the visible datasets, as queries, grouped by file and language. */
export function datasetQuestions(root: string): BenchText[] {
  const files = [
    path.join(root, '../shared/datasets/pytest/code-qa.jsonl'),
    path.join(root, '../shared/datasets/pytest/issue-localization.jsonl'),
    ...fs
      .readdirSync(path.join(root, 'datasets'))
      .filter((f) => f.endsWith('.jsonl') && f !== 'judge-calibration.jsonl')
      .map((f) => path.join(root, 'datasets', f)),
  ];
  const out: BenchText[] = [];
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as { question?: string; lang?: string };
      if (r.question) out.push({ group: `${path.basename(file, '.jsonl')} (${r.lang ?? '?'})`, kind: 'query', text: r.question });
    }
  }
  return out;
}
