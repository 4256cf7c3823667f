import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modelDir, root } from './paths.ts';

/** A throwaway cita project: config/defaults.yaml from the repo, one instance over `repo/`. */
export interface TestProject {
  dir: string;
  repo: string;
  write(rel: string, content: string | Buffer): void;
  remove(rel: string): void;
  setInstance(yaml: string, name?: string): void;
  cleanup(): void;
}

export function makeProject(instanceName = 'demo'): TestProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-cli-'));
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(dir, 'config/instances'), { recursive: true });
  fs.mkdirSync(repo);
  fs.copyFileSync(path.join(root, 'config/defaults.yaml'), path.join(dir, 'config/defaults.yaml'));
  const project: TestProject = {
    dir,
    repo,
    write(rel, content) {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), content);
    },
    remove(rel) {
      fs.rmSync(path.join(repo, rel));
    },
    setInstance(yaml, name = instanceName) {
      fs.writeFileSync(path.join(dir, 'config/instances', `${name}.yaml`), yaml);
    },
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  // The real model, shared with the rest of the tests (provisioned by `npm run setup`).
  project.setInstance(
    `name: ${instanceName}\nrepository:\n  path: repo\nembedding:\n  dir: ${path.dirname(modelDir)}\n`,
  );
  return project;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const bin = path.join(root, 'bin/cita.mjs');

export function cita(project: TestProject, args: string[]): CliResult {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: project.dir,
    env: { ...process.env, CITA_ROOT: project.dir },
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts `cita` in the background, for tests that kill it midway. */
export function citaAsync(project: TestProject, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawn(process.execPath, [bin, ...args], {
    cwd: project.dir,
    env: { ...process.env, CITA_ROOT: project.dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `cita` without blocking this process, so servers in the test (a fake GitHub) can answer it. */
export async function citaRun(project: TestProject, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = citaAsync(project, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
