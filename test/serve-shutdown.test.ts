import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';

/**
 * `cita serve` as a user runs it: a child process without the test runner's NODE_ENV=test (which
 * turns Apollo's own signal handler off and hid the fault), stopped with SIGTERM while asks are in
 * flight. cita's drain owns shutdown: every ask is answered, and the process exits 0.
 */

const bin = path.resolve(import.meta.dirname, '../bin/cita.mjs');
const ASKS = 20;
const QUERY = 'query($i: String!, $q: String!) { ask(instance: $i, question: $q) { answer { text } } }';

describe('cita serve shutdown', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject();
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  it(`answers the ${ASKS} asks in flight on SIGTERM and exits 0, with NODE_ENV unset`, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, CITA_ROOT: p.dir };
    delete env.NODE_ENV;
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { cwd: p.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const m = /serving on (http:\/\/\S+?)[ ;]/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(`cita serve exited before listening: ${stderr}`)));
    });
    const asks = Array.from({ length: ASKS }, (_, i) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY, variables: { i: 'demo', q: `How do I install widgets? (${i})` } }),
      }).then(
        async (r) => ((await r.json()) as { data?: { ask?: { answer?: { text: string } } } }).data?.ask?.answer?.text ?? 'no answer',
        (err: Error) => `failed: ${err.message}`,
      ),
    );
    // Let the requests reach the server, then stop it while they are being answered.
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGTERM');
    const answers = await Promise.all(asks);
    expect(answers.filter((a) => !a.startsWith('According to'))).toEqual([]);
    expect(await exited).toBe(0);
    expect(stderr).toContain('shutting down, finishing in-flight requests');
  }, 180_000);
});
