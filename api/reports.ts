import fs from 'node:fs';
import path from 'node:path';

/**
 * The evaluation reports of `reports/` for the page: each listed with its verdict (a nightly's PASS
 * or FAIL, an A/B's better/worse/same counts), and its files served read-only. Only plain names
 * directly in the folder are served (no separators, no `..`, no link pointing out of it).
 */

export interface ReportSummary {
  name: string;
  kind: 'run' | 'ab' | 'nightly' | 'unknown';
  createdAt?: string;
  instance?: string;
  command?: string;
  /** `PASS` / `FAIL` (nightly), `B better on 2, worse on 0, same on 10 (primary metrics)` (ab), `baseline` / `run`. */
  verdict: string;
  /** `pass`, `fail`, `better`, `worse`, `same`, `none`: for styling. */
  status: string;
  /** The files there are of it, by extension, e.g. ['html', 'md', 'json']. */
  files: string[];
}

interface ComparisonLike {
  verdict?: string;
  group?: Record<string, unknown>;
}

interface ReportLike {
  kind?: string;
  meta?: { createdAt?: string; instance?: string; command?: string };
  comparisons?: ComparisonLike[];
  primary?: ComparisonLike[];
  verdict?: { status?: string; regressions?: unknown[]; errors?: unknown[] };
}

const FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.(html|md|json)$/;
export const REPORT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  md: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** The verdict of one report, from its JSON. */
export function verdictOf(name: string, r: ReportLike): Pick<ReportSummary, 'verdict' | 'status'> {
  if (r.kind === 'nightly' && r.verdict?.status) {
    const pass = r.verdict.status === 'pass';
    const regressions = r.verdict.regressions?.length ?? 0;
    const errors = r.verdict.errors?.length ?? 0;
    const why = pass ? '' : ` (${regressions} regression${regressions === 1 ? '' : 's'}${errors ? `, ${errors} failed questions` : ''})`;
    return { verdict: `${pass ? 'PASS' : 'FAIL'}${why}`, status: pass ? 'pass' : 'fail' };
  }
  if (r.kind === 'ab' || r.kind === 'nightly') {
    // The gate's family when the report has one; otherwise the comparisons over all questions.
    const family = r.primary?.length ? r.primary : (r.comparisons ?? []).filter((c) => !c.group || Object.keys(c.group).length === 0);
    const count = (v: string) => family.filter((c) => c.verdict === v).length;
    const [better, worse, same] = [count('better'), count('worse'), count('same')];
    const which = r.primary?.length ? 'primary metrics' : 'all questions';
    return {
      verdict: `B better on ${better}, worse on ${worse}, same on ${same} (${which})`,
      status: worse ? 'worse' : better ? 'better' : 'same',
    };
  }
  return { verdict: name === 'baseline' ? 'baseline' : 'run', status: 'none' };
}

/** Every report in `dir` (by its base name), newest first. */
export function listReports(dir: string): ReportSummary[] {
  let names: string[];
  try {
    // Regular files only: a link could lead out of the folder.
    names = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && FILE.test(e.name)).map((e) => e.name);
  } catch {
    return []; // no reports folder: nothing to list
  }
  const bases = new Map<string, string[]>();
  for (const n of names) {
    const ext = path.extname(n).slice(1);
    const base = n.slice(0, -ext.length - 1);
    bases.set(base, [...(bases.get(base) ?? []), ext]);
  }
  const out: ReportSummary[] = [];
  for (const [name, exts] of bases) {
    let r: ReportLike = {};
    if (exts.includes('json')) {
      try {
        r = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')) as ReportLike;
      } catch {
        r = {}; // listed without a verdict
      }
    }
    const kind = r.kind === 'run' || r.kind === 'ab' || r.kind === 'nightly' ? r.kind : 'unknown';
    out.push({
      name,
      kind,
      createdAt: r.meta?.createdAt,
      instance: r.meta?.instance,
      command: r.meta?.command,
      ...verdictOf(name, r),
      files: ['html', 'md', 'json'].filter((e) => exts.includes(e)),
    });
  }
  // The baseline first (the reference), then the newest.
  return out.sort((a, b) => Number(b.name === 'baseline') - Number(a.name === 'baseline') || (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.name.localeCompare(b.name));
}

/**
 * The file for a request path's last part (`baseline.html`), or undefined when it is not a report
 * file directly in `dir`: other names, encoded separators, `..`, and links leading elsewhere are refused.
 */
export function reportFile(dir: string, requested: string): { file: string; type: string } | undefined {
  let name: string;
  try {
    name = decodeURIComponent(requested);
  } catch {
    return undefined;
  }
  const m = FILE.exec(name);
  if (!m || name.includes('..')) return undefined;
  try {
    const real = fs.realpathSync(path.join(dir, name));
    if (path.dirname(real) !== fs.realpathSync(dir) || !fs.statSync(real).isFile()) return undefined;
    return { file: real, type: REPORT_TYPES[m[1]!]! };
  } catch {
    return undefined;
  }
}
