/**
 * A throwaway cita project for benches and fuzzing, and `cita serve` over it as a child process (its
 * memory its own): config/defaults.yaml from this repository and a
 * `demo` instance over a tiny repository (one doc page, one Python file, one issue), indexed with
 * the real model. Not for tests (they have test/support/demoRepo.ts, which asserts with vitest).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface DemoProject {
  /** The project root (CITA_ROOT). */
  root: string;
  instance: 'demo';
  /** The instance's YAML, to restore it after a run that may have overwritten it. */
  config: string;
  cleanup(): void;
}

const ISSUE = {
  number: 42,
  title: 'parse_config crashes on an empty file',
  body: 'Calling parse_config on an empty JSON file raises a JSONDecodeError.',
  state: 'open',
  html_url: 'https://github.com/acme/widgets/issues/42',
  labels: [],
  user: { login: 'r' },
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
};

/** A paired English/Spanish question with its gold page, for `cita eval demo`. */
const QUESTIONS = ['en', 'es'].map((lang) => ({
  id: `demo-1-${lang}`,
  pair: 'demo-1',
  lang,
  kind: 'how-to',
  question: lang === 'en' ? 'How do I skip a test on Windows?' : '¿Cómo omito un test en Windows?',
  gold: { files: ['docs/guide.md'], symbols: [], issues: [], source: 'docs' },
}));

export function makeDemoProject(repoRoot: string, prefix = 'cita-demo-'): DemoProject {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  fs.mkdirSync(path.join(root, 'config/instances'), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, 'config/defaults.yaml'), path.join(root, 'config/defaults.yaml'));
  write('repo/docs/guide.md', '# Guide\n\n## Skipping tests\n\nUse the skip marker to skip a test unconditionally. Use skipif with a condition to skip a test only on some platforms, for example on Windows.\n\n## Installing\n\nInstall the package with pip install widgets. Then run the widgets command from any folder.\n');
  write('repo/src/loader.py', '"""Reading configuration files."""\nimport json\n\n\ndef parse_config(path):\n    """Read a JSON configuration file and return a dict of settings."""\n    with open(path) as fh:\n        return json.load(fh)\n');
  write('issues.json', JSON.stringify([ISSUE]));
  write('questions.jsonl', QUESTIONS.map((q) => JSON.stringify(q)).join('\n'));
  const config = `name: demo\nrepository:\n  path: repo\n  github: acme/widgets\nsources:\n  issues:\n    kind: file\n    file: issues.json\nembedding:\n  dir: ${path.join(repoRoot, '.cita/models')}\neval:\n  datasets:\n    - name: demo\n      path: questions.jsonl\n`;
  write('config/instances/demo.yaml', config);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/cita.mjs'), 'index', 'demo', '--json'], { env: { ...process.env, CITA_ROOT: root }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`indexing the demo project failed: ${r.stderr}`);
  return { root, instance: 'demo', config, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export interface DemoServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts `cita serve --port 0` over a project and resolves with the address it prints. */
export async function startServer(root: string, repoRoot: string, env: NodeJS.ProcessEnv = {}): Promise<DemoServer> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/cita.mjs'), 'serve', '--port', '0'], { env: { ...process.env, ...env, CITA_ROOT: root }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /serving on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`cita serve exited with ${code}: ${err}`)));
  });
  return { url, child, stderr: () => err };
}
