/**
 * `npm start`: set up, index (incrementally), ask two or three real questions through `cita ask`
 * (English and Spanish, one per route), then serve the GraphQL API and the page on 127.0.0.1 until
 * Ctrl-C. Options (after `npm start --`): `--instance N` (default pytest), `--no-setup`,
 * `--port P` (default 4000; a busy port falls back to a free one), `--host H`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IndexNotReadyError, openInstance } from '../pipeline/instance.ts';
import { curlLine } from './start/curl.ts';
import { pickExamples, type Example } from './start/examples.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const cita = path.join(here, '../bin/cita.mjs');

/** Set by the first Ctrl-C (or SIGTERM): a step that ends then ends the whole start. */
let stopSignal: NodeJS.Signals | undefined;

/** Runs a step as a child with the terminal's output; Ctrl-C reaches it from the terminal (same process group). */
function step(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    // A signal sent to this process alone (not from a terminal) still stops the step.
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function must(label: string, args: string[]): Promise<void> {
  const code = await step(args);
  if (stopSignal) {
    process.stderr.write(`npm start: stopped during ${label}; run it again to go on from where it was\n`);
    process.exit(130);
  }
  if (code !== 0) {
    process.stderr.write(`npm start: ${label} failed (exit ${code}); see its message above\n`);
    process.exit(code);
  }
}

async function examples(instance: string): Promise<Example[]> {
  const opened = await openInstance(instance, { purpose: 'read' }).catch((err: unknown) => {
    if (err instanceof IndexNotReadyError) return undefined;
    throw err;
  });
  if (!opened) return [];
  try {
    return await pickExamples(opened.store);
  } finally {
    await opened.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      instance: { type: 'string', default: 'pytest' },
      'no-setup': { type: 'boolean', default: false },
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  const instance = values.instance!;
  if (!/^\d+$/.test(values.port!) || Number(values.port) > 65535) throw new Error(`--port ${values.port}: expected a port number from 0 to 65535`);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => (stopSignal ??= sig));

  if (!values['no-setup']) await must('setup', ['--import', import.meta.resolve('tsx'), path.join(here, 'setup.ts')]);
  await must(`cita index ${instance}`, [cita, 'index', instance]);

  const asked = await examples(instance);
  for (const e of asked) {
    process.stdout.write(`\n$ cita ask ${instance} "${e.question}"    # ${e.route}, ${e.language === 'es' ? 'Spanish' : 'English'}\n`);
    // One failed answer does not keep the server from starting; its error is above.
    const code = await step([cita, 'ask', instance, e.question]);
    if (stopSignal) process.exit(130);
    if (code !== 0) process.stderr.write(`npm start: that question failed (exit ${code}); going on\n`);
  }

  // The server runs in this process: Ctrl-C drains it and exits 0.
  const { startServer } = await import('../api/server.ts');
  const wanted = Number(values.port);
  const server = await startServer({ port: wanted, host: values.host }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    process.stderr.write(`npm start: port ${wanted} is in use; serving on a free port instead\n`);
    return startServer({ port: 0, host: values.host });
  });
  const example = asked[0]?.question ?? 'How do I get started?';
  process.stdout.write(
    `\ncita serving on ${server.url}\n` +
      `  the page (questions, reports, index state): ${server.url}/\n` +
      `  GraphQL: ${server.url}/graphql, for example:\n` +
      `  ${curlLine(server.url, instance, example)}\n` +
      'Ctrl-C stops the server.\n',
  );
  if (!stopSignal) {
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  }
  process.stderr.write('cita: shutting down, finishing in-flight requests\n');
  await server.close();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
