#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader: no build step between an edit and a run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../api/cli/main.ts');
const code = await main(process.argv);
// Exit explicitly: the model engine's worker threads must not keep the process alive.
process.exit(code);
