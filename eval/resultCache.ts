import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { QuestionResult } from './report/types.ts';

/**
 * Per-question results kept between runs (#13 item 9), so an A/B does not re-run A and a run cut
 * short resumes where it stopped. A result is reused only when everything that makes it is the
 * same: the resolved config (its hash), the index (store location and generation), the model,
 * generator and judge ids, the dataset file's sha256, and the code (every file git tracks or would
 * add, but reports and Markdown, as it is in the working tree). Anything else different is a different key, so a stale result cannot
 * be served; outside a git checkout the code cannot be identified and nothing is cached.
 *
 * One JSON Lines file per key under the cache directory, appended after each question, so nothing
 * evaluated is lost when a run fails halfway. Latency in a reused result is the latency of the run
 * that made it; the caller must not compare it with fresh timings.
 */

/**
 * Paths that never change a result: the committed reports (an A/B writes its own there) and prose
 * (Markdown). Datasets are in the key by their own sha256.
 */
const NOT_CODE = [':(exclude)reports', ':(exclude)*.md'];

/**
 * The code the results come from: the blob ids of the tracked files (as staged), any unstaged
 * change to them, and the files not yet added (a new module under development; those git ignores
 * are not code), reports and Markdown left out — so committing a report or editing the README keeps
 * the cache, and any change to code or config does not. Undefined outside git.
 */
export function codeVersion(root: string): string | undefined {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'buffer', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 });
    const hash = crypto.createHash('sha256');
    hash.update(git(['ls-files', '-s', '--', '.', ...NOT_CODE]));
    hash.update(git(['diff', '--binary', '--', '.', ...NOT_CODE]));
    const untracked = git(['ls-files', '-z', '--others', '--exclude-standard', '--', '.', ...NOT_CODE]).toString('utf8').split('\0').filter((f) => f !== '');
    for (const file of untracked.sort()) {
      const full = path.join(root, file);
      hash.update(`\0${file}\0`);
      if (fs.statSync(full, { throwIfNoEntry: false })?.isFile()) hash.update(fs.readFileSync(full));
    }
    return hash.digest('hex').slice(0, 16);
  } catch {
    return undefined;
  }
}

/** What a result depends on; each field is compared as a string. */
export interface ResultKeyParts {
  configHash: string;
  /** Store kind, location and generation (`generation()`: bumps with every committed index change). */
  index: string;
  model: string;
  generator: string;
  judge: string;
  datasetSha256: string;
  code: string;
}

/** The file name a key's results live in. Pure. */
export function resultKey(parts: ResultKeyParts): string {
  const ordered = Object.keys(parts)
    .sort()
    .map((k) => [k, parts[k as keyof ResultKeyParts]]);
  return crypto.createHash('sha256').update(JSON.stringify(ordered)).digest('hex').slice(0, 24);
}

export class ResultCache {
  private readonly loaded = new Map<string, Map<string, QuestionResult>>();

  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, `${key}.jsonl`);
  }

  private entries(key: string): Map<string, QuestionResult> {
    let m = this.loaded.get(key);
    if (m) return m;
    m = new Map();
    let text = '';
    try {
      text = fs.readFileSync(this.file(key), 'utf8');
    } catch {
      // no results under this key yet
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as QuestionResult;
        if (typeof r.id === 'string') m.set(r.id, r);
      } catch {
        // a line cut by a crash mid-write: that question is simply evaluated again
      }
    }
    this.loaded.set(key, m);
    return m;
  }

  get(key: string, id: string): QuestionResult | undefined {
    return this.entries(key).get(id);
  }

  /** Keeps a result; one with an error is not kept (the next run tries the question again). */
  put(key: string, result: QuestionResult): void {
    if (result.error) return;
    fs.mkdirSync(this.dir, { recursive: true });
    fs.appendFileSync(this.file(key), `${JSON.stringify(result)}\n`);
    this.entries(key).set(result.id, result);
  }
}
