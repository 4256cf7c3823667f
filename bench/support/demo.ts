import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A small demo project indexed on the fly, and `cita serve` over it as a child process (its memory its own). */

export function makeDemo(repoRoot: string): { root: string; instance: string } {
  const bin = path.join(repoRoot, 'bin/cita.mjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-load-'));
  const w = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  fs.mkdirSync(path.join(dir, 'config/instances'), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, 'config/defaults.yaml'), path.join(dir, 'config/defaults.yaml'));
  w('repo/docs/guide.md', '# Guide\n\n## Skipping tests\n\nUse the skip marker to skip a test unconditionally. Use skipif with a condition to skip a test only on some platforms, for example on Windows.\n\n## Installing\n\nInstall the package with pip install widgets. Then run the widgets command from any folder.\n');
  w('repo/src/loader.py', '"""Reading configuration files."""\nimport json\n\n\ndef parse_config(path):\n    """Read a JSON configuration file and return a dict of settings."""\n    with open(path) as fh:\n        return json.load(fh)\n');
  w('issues.json', JSON.stringify([{ number: 42, title: 'parse_config crashes on an empty file', body: 'Calling parse_config on an empty JSON file raises a JSONDecodeError.', state: 'open', html_url: 'https://github.com/acme/widgets/issues/42', labels: [], user: { login: 'r' }, created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z' }]));
  w('config/instances/demo.yaml', `name: demo\nrepository:\n  path: repo\n  github: acme/widgets\nsources:\n  issues:\n    kind: file\n    file: issues.json\nembedding:\n  dir: ${path.join(repoRoot, '.cita/models')}\n`);
  const r = spawnSync(process.execPath, [bin, 'index', 'demo', '--json'], { env: { ...process.env, CITA_ROOT: dir }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`indexing the demo project failed: ${r.stderr}`);
  return { root: dir, instance: 'demo' };
}

export async function startServer(root: string, repoRoot: string): Promise<{ url: string; child: ChildProcess }> {
  const bin = path.join(repoRoot, 'bin/cita.mjs');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env: { ...process.env, CITA_ROOT: root }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { url, child };
}
