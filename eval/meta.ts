import { execFileSync } from 'node:child_process';

/** The commit the figures come from, and whether the tree had uncommitted changes. */
export function gitState(root: string): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: 'unknown (not a git checkout)', dirty: false };
  }
}

/** The command line as a person would retype it (arguments with spaces or quotes quoted). */
export function commandLine(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' ');
}
