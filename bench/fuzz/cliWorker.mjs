// Runs `cita` argument lists in one process for bench/fuzz.ts (a Node start per case would cost more
// than the case): each message { id, argv } is answered with { id, code, stdout, stderr } or, for an
// exception that escaped main(), { id, crash }. CITA_DEBUG=1 is set by the parent, so an unexpected
// error prints its stack (counted) while a user error does not.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
const { main } = await import('../../api/cli/main.ts');

let current;
const capture = { stdout: '', stderr: '' };
const write = (name) => (chunk, encoding, cb) => {
  capture[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const done = typeof encoding === 'function' ? encoding : cb;
  if (done) done();
  return true;
};
process.stdout.write = write('stdout');
process.stderr.write = write('stderr');
const crash = (err) => {
  process.send({ id: current, crash: err instanceof Error ? `${err.stack}` : String(err) });
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

process.on('message', async ({ id, argv }) => {
  current = id;
  capture.stdout = '';
  capture.stderr = '';
  process.exitCode = undefined;
  const code = await main(['node', 'cita', ...argv]);
  process.send({ id, code, stdout: capture.stdout.slice(0, 20000), stderr: capture.stderr.slice(0, 20000) });
});
process.send({ ready: true });
