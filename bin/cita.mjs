#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader: no build step between an edit and a run.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// Our tsconfig wherever cita runs from (tsx reads the working directory's otherwise): the API's
// decorators need `experimentalDecorators`.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
// A reader that stops early (`cita search … | head`) closes the pipe: the rest of the output has
// nowhere to go, which is not an error of cita's.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
const { main } = await import('../api/cli/main.ts');
const code = await main(process.argv);
// A pipe may still hold output (`cita ask --json | slow-reader`): process.exit would cut it at the
// pipe's 64 KiB. An empty write's callback runs once everything written before it is handed over.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
// Exit explicitly: the model engine's worker threads must not keep the process alive.
process.exit(code);
