import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { Collection, Document } from '../types.ts';
import { codeFormat, CODE_FORMATS, decodeUtf8, docFormat, skipBeforeReading, skipReason, type SkipReason } from './classify.ts';

/**
 * The docs and code sources: walks a checkout, matching with gitignore semantics (the `ignore`
 * package, the same rules git uses), and honouring the repository's own .gitignore files.
 */

export interface FileSourceRules {
  include: string[];
  exclude: string[];
}

export interface WalkOptions {
  docs?: FileSourceRules;
  code?: FileSourceRules;
  /** Excluded from every source. */
  exclude: string[];
  respectGitignore: boolean;
  maxFileBytes: number;
  /** The walk stops with an error past this many files, included or not (default: no limit). */
  maxFiles?: number;
  /** Reads a file's bytes; injected in tests (as root, permissions cannot make a file unreadable). */
  readFile?: (abs: string) => Buffer;
}

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  /** Which rule or check decided, e.g. `exclude: doc/en/announce/**` or `NUL byte in the first 8 KiB`. */
  detail: string;
}

export interface FileScan {
  documents: Document[];
  skipped: SkippedFile[];
  /** Files seen that no source includes (not an error; most repositories have many). */
  unmatched: number;
}

/** A compiled include/exclude pair: a file is taken if some include matches and no exclude does. */
export class PatternSet {
  private readonly inc: Ignore;
  private readonly exc: Ignore;
  constructor(readonly rules: FileSourceRules) {
    this.inc = ignore().add(rules.include);
    this.exc = ignore().add(rules.exclude);
  }
  includes(rel: string): boolean {
    return this.inc.ignores(rel);
  }
  /**
   * Whether a whole directory is excluded: the directory itself matches (`build/`), or everything
   * inside it does (`**\/node_modules/**`), probed with a child name no extension pattern can match.
   */
  excludesDir(relDir: string): boolean {
    return this.exc.ignores(`${relDir}/`) || this.exc.ignores(`${relDir}/\u0001`);
  }
  /** The exclude pattern that removes `rel`, if any. */
  excludedBy(rel: string): string | undefined {
    const r = this.exc.test(rel);
    return r.ignored ? (r.rule?.pattern ?? 'exclude') : undefined;
  }
}

/** The .gitignore files from the root down to a directory, each with the directory it applies to. */
interface GitignoreLevel {
  base: string;
  rules: Ignore;
}

function gitignored(levels: GitignoreLevel[], rel: string, isDir: boolean): boolean {
  // Deeper files override shallower ones, and a later `!pattern` re-includes, as in git.
  let ignored = false;
  for (const { base, rules } of levels) {
    const sub = base ? path.posix.relative(base, rel) : rel;
    if (!sub || sub.startsWith('..')) continue;
    const r = rules.test(isDir ? `${sub}/` : sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

function readGitignore(absDir: string, relDir: string): GitignoreLevel | undefined {
  const file = path.join(absDir, '.gitignore');
  if (!fs.existsSync(file)) return undefined;
  return { base: relDir, rules: ignore().add(fs.readFileSync(file, 'utf8')) };
}

/** Which collection takes a file: code for known code extensions, else docs, else code as plain text. */
function collectionFor(rel: string, docs?: PatternSet, code?: PatternSet): { collection: Collection; set: PatternSet } | undefined {
  const isCodeExt = path.extname(rel).toLowerCase() in CODE_FORMATS;
  if (code?.includes(rel) && isCodeExt) return { collection: 'code', set: code };
  if (docs?.includes(rel)) return { collection: 'docs', set: docs };
  if (code?.includes(rel)) return { collection: 'code', set: code };
  return undefined;
}

export function scanFiles(checkout: string, options: WalkOptions): FileScan {
  if (!fs.existsSync(checkout) || !fs.statSync(checkout).isDirectory()) {
    throw new Error(`repository.path: ${checkout} is not a directory`);
  }
  const docs = options.docs ? new PatternSet(options.docs) : undefined;
  const code = options.code ? new PatternSet(options.code) : undefined;
  const global = new PatternSet({ include: [], exclude: options.exclude });
  const scan: FileScan = { documents: [], skipped: [], unmatched: 0 };
  const maxFiles = options.maxFiles ?? Infinity;
  let files = 0;

  const walk = (absDir: string, relDir: string, levels: GitignoreLevel[]): void => {
    const own = options.respectGitignore ? readGitignore(absDir, relDir) : undefined;
    const here = own ? [...levels, own] : levels;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absDir, { withFileTypes: true });
    } catch (err) {
      scan.skipped.push({ path: relDir || '.', reason: 'unreadable', detail: (err as NodeJS.ErrnoException).code ?? String(err) });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
      const abs = path.join(absDir, entry.name);
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) {
        if (options.respectGitignore && gitignored(here, rel, true)) continue;
        if (global.excludesDir(rel)) continue;
        walk(abs, rel, here);
        continue;
      }
      if (++files > maxFiles) {
        throw new Error(
          `repository.path ${checkout}: more than ${maxFiles} files seen, so the scan stopped (sources.maxFiles); ` +
            'point repository.path at a repository checkout, exclude large folders (sources.exclude) or raise sources.maxFiles',
        );
      }
      if (!entry.isFile()) continue; // symlinks and devices: a checkout's own files only
      const target = collectionFor(rel, docs, code);
      if (!target) {
        scan.unmatched++;
        continue;
      }
      const globalRule = global.excludedBy(rel);
      const ownRule = target.set.excludedBy(rel);
      if (globalRule || ownRule) {
        scan.skipped.push({ path: rel, reason: 'excluded', detail: `exclude: ${globalRule ?? ownRule}` });
        continue;
      }
      if (options.respectGitignore && gitignored(here, rel, false)) {
        scan.skipped.push({ path: rel, reason: 'gitignored', detail: '.gitignore' });
        continue;
      }
      let bytes: Buffer;
      let stat: fs.Stats;
      try {
        stat = fs.statSync(abs);
        const early = skipBeforeReading(rel, stat.size, options.maxFileBytes);
        if (early) {
          scan.skipped.push({ path: rel, ...early });
          continue;
        }
        bytes = (options.readFile ?? fs.readFileSync)(abs);
      } catch (err) {
        scan.skipped.push({ path: rel, reason: 'unreadable', detail: (err as NodeJS.ErrnoException).code ?? String(err) });
        continue;
      }
      const skip = skipReason(rel, bytes, options.maxFileBytes);
      if (skip) {
        scan.skipped.push({ path: rel, ...skip });
        continue;
      }
      const text = decodeUtf8(bytes);
      if (text === null) {
        scan.skipped.push({ path: rel, reason: 'not-utf8', detail: 'not valid UTF-8' });
        continue;
      }
      if (!text.trim()) {
        scan.skipped.push({ path: rel, reason: 'empty', detail: 'only whitespace' });
        continue;
      }
      const format = target.collection === 'code' ? codeFormat(rel) : docFormat(rel);
      scan.documents.push({ collection: target.collection, path: rel, text, format, file: { size: stat.size, mtimeMs: stat.mtimeMs } });
    }
  };
  walk(checkout, '', []);
  return scan;
}

/** Counts of skipped files by reason, for summaries. */
export function countSkipped(skipped: SkippedFile[]): Partial<Record<SkipReason, number>> {
  const counts: Partial<Record<SkipReason, number>> = {};
  for (const s of skipped) counts[s.reason] = (counts[s.reason] ?? 0) + 1;
  return counts;
}
