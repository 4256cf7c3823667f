/**
 * cita as a promptfoo custom provider. Each test's `query` var is asked through the very same
 * `ask()` as `cita ask` (DESIGN: no second code path for measuring). The output is the answer text;
 * the metadata carries what the assertions check: the markers, the resolved citations, the invalid
 * markers, the unsupported sentences, and the exact context blocks the generator saw (a model-graded
 * judge receives those, lesson 5).
 *
 * Provider config (promptfooconfig.yaml) or environment:
 *   instance  CITA_INSTANCE        instance name (config/instances/<name>.yaml), default `pytest`
 *   set       CITA_PROMPTFOO_SET   config overrides, as `cita ask --set` (env: comma-separated)
 *   mode      CITA_PROMPTFOO_MODE  `inprocess` (default): open the index, model and generator once and
 *                                  reuse them; `cli`: spawn `node bin/cita.mjs ask … --json` per question
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/** The project root: two levels up from eval/promptfoo, unless CITA_ROOT says otherwise. */
export const ROOT = process.env.CITA_ROOT ? path.resolve(process.env.CITA_ROOT) : fileURLToPath(new URL('../..', import.meta.url));

let tsxApi;
/**
 * Imports one of cita's TypeScript modules through the root's tsx (the one `bin/cita.mjs` uses, with
 * the root tsconfig), in a tsx namespace of its own so promptfoo's own loaders are not affected.
 */
export async function importCita(relative) {
  if (!tsxApi) {
    // The ESM entry of the root's tsx (require.resolve would give its CommonJS one).
    const pkgFile = createRequire(path.join(ROOT, 'package.json')).resolve('tsx/package.json');
    const entry = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).exports['./esm/api'].import.default;
    const { register } = await import(pathToFileURL(path.join(path.dirname(pkgFile), entry)).href);
    tsxApi = register({ namespace: 'cita-promptfoo', tsconfig: path.join(ROOT, 'tsconfig.json') });
  }
  return tsxApi.import(pathToFileURL(path.join(ROOT, relative)).href, import.meta.url);
}

const splitList = (s) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** One open instance per (instance, overrides): loading the embedding model takes seconds. */
const sessions = new Map();

async function openSession(instance, sets) {
  const key = JSON.stringify([instance, sets]);
  if (!sessions.has(key)) {
    sessions.set(
      key,
      (async () => {
        const { openInstance } = await importCita('pipeline/instance.ts');
        const { ask } = await importCita('pipeline/answer/ask.ts');
        const t = performance.now();
        // Opened and checked as `cita ask` opens it (the same errors: no index yet, another model, …).
        const { config, paths, store, embedder, generator, close } = await openInstance(instance, {
          purpose: 'ask',
          root: ROOT,
          overrides: sets,
          log: (m) => process.stderr.write(`${m}\n`),
        });
        const openMs = performance.now() - t;
        const deps = { config, store, embedder, generator, checkout: paths.checkout };
        return { openMs, ask: (question) => ask(deps, question), close };
      })(),
    );
  }
  return sessions.get(key);
}

const execFileAsync = promisify(execFile);

/** `cita ask --json` in a child process: slower (the model loads per question), but exactly the CLI. */
async function askCli(instance, sets, question) {
  const args = [path.join(ROOT, 'bin/cita.mjs'), 'ask', instance, question, '--json', ...sets.flatMap((s) => ['--set', s])];
  const { stdout } = await execFileAsync(process.execPath, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CITA_ROOT: ROOT } });
  return JSON.parse(stdout);
}

/** The markers of a text as cita parses them (ignoring `items[1]` inside backticks). */
let markersOf;

/** What the assertions read; everything a person needs to check an answer by hand. */
function toMetadata(result, extra) {
  const a = result.answer;
  return {
    generator: a.generator,
    language: a.language,
    noAnswer: Boolean(a.noAnswer),
    markers: markersOf(a.text),
    citations: a.citations.map((c) => ({ marker: c.marker, collection: c.collection, path: c.path, lines: `${c.startLine}-${c.endLine}`, verified: c.verified, ...(c.problem ? { problem: c.problem } : {}), ...(c.issue ? { issue: c.issue } : {}) })),
    invalid: a.invalid,
    unsupported: a.unsupported,
    citedPaths: [...new Set(a.citations.filter((c) => c.verified).map((c) => c.path))],
    contextPaths: [...new Set(result.context.blocks.map((b) => b.citation.path))],
    /** Exactly the blocks the generator read, one string each, with their marker and citation. */
    contextBlocks: result.context.blocks.map((b) => `[${b.marker}] ${b.citation.path}:${b.citation.startLine}-${b.citation.endLine}\n${b.text}`),
    contextChars: result.context.chars,
    routeTop: result.route.top,
    slots: result.fusion.slots,
    timingsMs: Object.fromEntries(Object.entries(result.timings).map(([k, v]) => [k, Math.round(v)])),
    ...extra,
  };
}

export default class CitaProvider {
  constructor(options = {}) {
    const cfg = options.config ?? {};
    this.instance = cfg.instance ?? process.env.CITA_INSTANCE ?? 'pytest';
    this.sets = [...(cfg.set ?? []), ...splitList(process.env.CITA_PROMPTFOO_SET)];
    this.mode = process.env.CITA_PROMPTFOO_MODE ?? cfg.mode ?? 'inprocess';
    if (!['inprocess', 'cli'].includes(this.mode)) throw new Error(`cita provider: mode "${this.mode}" is not one of inprocess, cli`);
    this.providerId = options.id ?? `cita:${this.instance}`;
    if (options.label) this.label = options.label;
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    // The question is read from the var, not the rendered prompt: no templating touches it.
    const question = typeof context?.vars?.query === 'string' ? context.vars.query : prompt;
    const started = performance.now();
    try {
      if (!markersOf) markersOf = (await importCita('pipeline/answer/citations.ts')).parseMarkers;
      let result;
      let openMs = 0;
      if (this.mode === 'cli') {
        result = await askCli(this.instance, this.sets, question);
      } else {
        const session = await openSession(this.instance, this.sets);
        openMs = session.openMs;
        result = await session.ask(question);
      }
      if (!result.answer) return { error: 'cita returned no answer (retrieval only?)' };
      const latencyMs = Math.round(performance.now() - started);
      return {
        output: result.answer.text,
        latencyMs,
        metadata: toMetadata(result, { mode: this.mode, instance: this.instance, ...(this.mode === 'inprocess' ? { sessionOpenMs: Math.round(openMs) } : {}) }),
      };
    } catch (err) {
      const stderr = err && typeof err === 'object' && 'stderr' in err ? String(err.stderr).trim() : '';
      return { error: `cita (${this.mode}) failed: ${stderr || (err instanceof Error ? err.message : String(err))}` };
    }
  }

  /** Called by promptfoo when the evaluation ends. */
  async cleanup() {
    const open = [...sessions.values()];
    sessions.clear();
    for (const s of open) await (await s.catch(() => null))?.close();
  }
}
