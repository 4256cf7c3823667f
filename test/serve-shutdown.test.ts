import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';
import { gqlSent } from './support/server.ts';

/**
 * `cita serve` as a user runs it: a child process without the test runner's NODE_ENV=test (which
 * turns Apollo's own signal handler off and hid the fault), stopped with SIGTERM while asks are in
 * flight. cita's drain owns shutdown: every ask is answered, and the process exits 0; a second signal
 * during the drain ends it at once, as a second Ctrl-C should.
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

  /** `cita serve --port 0` in the demo project, without NODE_ENV; resolves once it listens. */
  async function serve() {
    const env: NodeJS.ProcessEnv = { ...process.env, CITA_ROOT: p.dir };
    delete env.NODE_ENV;
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { cwd: p.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const io = { stderr: '' };
    child.stderr.on('data', (d) => (io.stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const m = /serving on (http:\/\/\S+?)[ ;]/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(`cita serve exited before listening: ${io.stderr}`)));
    });
    return { child, io, exited, url };
  }

  it(`answers the ${ASKS} asks in flight on SIGTERM and exits 0, with NODE_ENV unset`, async () => {
    const { child, io, exited, url } = await serve();
    const requests = Array.from({ length: ASKS }, (_, i) => gqlSent(url, QUERY, { i: 'demo', q: `How do I install widgets? (${i})` }));
    const asks = requests.map((r) =>
      r.response.then(
        (res) => (res.body as { data?: { ask?: { answer?: { text: string } } } }).data?.ask?.answer?.text ?? 'no answer',
        (err: Error) => `failed: ${err.message}`,
      ),
    );
    // Stop the server once every request has reached it (each on its own connection), while they are being answered.
    await Promise.all(requests.map((r) => r.sent));
    child.kill('SIGTERM');
    const answers = await Promise.all(asks);
    expect(answers.filter((a) => !a.startsWith('According to'))).toEqual([]);
    expect(await exited).toBe(0);
    expect(io.stderr).toContain('shutting down, finishing in-flight requests');
  }, 180_000);

  it('a second SIGTERM during the drain exits at once (128 + 15), without waiting for the request in flight', async () => {
    const { child, io, exited, url } = await serve();
    // A request whose body never arrives in full: in flight until the drain's deadline (30 s).
    const { hostname, port } = new URL(url);
    const held = net.connect(Number(port), hostname);
    held.on('error', () => {});
    await new Promise<void>((resolve) => held.once('connect', () => resolve()));
    held.write(`POST /graphql HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":`);
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    await vi.waitFor(() => expect(io.stderr).toContain('shutting down, finishing in-flight requests'), { timeout: 10_000 });
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(io.stderr).toContain('cita: SIGTERM again, exiting without waiting for in-flight requests');
    held.destroy();
  }, 60_000);
});
