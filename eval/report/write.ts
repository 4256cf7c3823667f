import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import type { Report } from './types.ts';

/**
 * Writes `<name>.json` (pretty, complete), `<name>.md` and `<name>.html` into `dir`, creating it.
 * All three are rendered before anything touches the disk, then each goes to a temporary file in
 * the same directory, is flushed, and is renamed over its target: a crash or a rendering error
 * leaves the previous report (or none), never a half-written one.
 */
export function writeReport(report: Report, dir: string, name: string): { json: string; md: string; html: string } {
  if (name === '' || /[/\\]/.test(name) || name === '.' || name === '..') {
    throw new Error(`report name ${JSON.stringify(name)} is not a file name: use letters, digits, '-', '_' or '.' without a path separator`);
  }
  const contents = {
    json: JSON.stringify(report, null, 2) + '\n',
    md: renderMarkdown(report),
    html: renderHtml(report),
  };
  mkdirSync(dir, { recursive: true });
  const paths = {
    json: join(dir, `${name}.json`),
    md: join(dir, `${name}.md`),
    html: join(dir, `${name}.html`),
  };
  const suffix = `.tmp-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const keys = ['json', 'md', 'html'] as const;
  const temps = keys.map((k) => `${paths[k]}${suffix}`);
  try {
    keys.forEach((k, i) => writeDurably(temps[i] as string, contents[k]));
    keys.forEach((k, i) => renameSync(temps[i] as string, paths[k]));
  } catch (error) {
    for (const t of temps) rmSync(t, { force: true });
    throw error;
  }
  return paths;
}

function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
