#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader: no build step between an edit and a run.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// Our tsconfig wherever cita runs from (tsx reads the working directory's otherwise): the API's
// decorators need `experimentalDecorators`.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../api/cli/main.ts');
const code = await main(process.argv);
// Exit explicitly: the model engine's worker threads must not keep the process alive.
process.exit(code);
