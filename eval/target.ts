import crypto from 'node:crypto';
import path from 'node:path';
import type { Generator } from '../pipeline/answer/types.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { UserError } from '../pipeline/errors.ts';
import { instanceBackend, loadInstance, noIndexYet, openEmbedder, openInstance, type InstancePaths } from '../pipeline/instance.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Embedder } from '../pipeline/types.ts';
import { ApertiumTranslator, type Translator, type TranslatorConfig } from '../pipeline/text/translate.ts';
import { createJudge } from './judge/create.ts';
import { memoizeQueries, type MemoizedEmbedder } from './queryMemo.ts';
import type { Judge } from './judge/types.ts';

/** One configuration under evaluation, opened exactly as `cita ask` opens it. */
export interface EvalTarget {
  label: string;
  /** Where the config came from: the instance file, overlays and overrides, in order. */
  configSource: string[];
  config: CitaConfig;
  configHash: string;
  paths: InstancePaths;
  store: Store;
  embedder: MemoizedEmbedder;
  /** This target's own translator (its own cache): `cita ask` would share one per process, which lets B ride on A's translations. */
  translator?: Translator;
  generator: Generator;
  judge: Judge | null;
  /** Empties this target's query caches (vectors, translations): after the warm-up, timed questions start cold. */
  resetCaches(): void;
}

/** A translator of this target's own, or undefined for `none`. */
function ownTranslator(config: TranslatorConfig): Translator | undefined {
  return config.kind === 'none' ? undefined : new ApertiumTranslator({ command: config.command, timeoutMs: config.timeoutMs });
}

export interface TargetSpec {
  label: string;
  instance: string;
  overlays: string[];
  overrides: string[];
}

/** Hash of the resolved configuration: two reports with the same hash ran the same settings. */
export function configHash(config: CitaConfig): string {
  return crypto.createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}

/** Opens the targets; a model or store the targets share (same settings) is opened once. `close` frees them all. */
export async function openTargets(specs: TargetSpec[], root: string, log: (m: string) => void): Promise<{ targets: EvalTarget[]; close(): Promise<void> }> {
  const embedders = new Map<string, Embedder>();
  const stores = new Map<string, Store>();
  const targets: EvalTarget[] = [];
  const opened: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const t of targets) await t.judge?.close?.();
    // Each target's generator (and the stores it opened first); then the shared models.
    for (const o of opened) await o.close();
    for (const e of embedders.values()) await e.close();
  };
  try {
    for (const spec of specs) {
      const loaded = loadInstance(spec.instance, { root, overlays: spec.overlays, overrides: spec.overrides });
      const { config, file, paths } = loaded;
      // Before a model loads: a missing index is the commonest failure and the cheapest to find.
      if (!(await instanceBackend(config, paths).exists())) throw labelled(spec, noIndexYet(config.name));
      const embedKey = JSON.stringify(config.embedding);
      let model = embedders.get(embedKey);
      if (!model) {
        model = await openEmbedder(config, paths);
        embedders.set(embedKey, model);
      }
      // One model in memory, but each target has its own query memo: a run served from another's
      // cache would report a latency it did not pay. Targets with the same index share one store,
      // unless they search it differently (`retrieval.bm25` is a store option: #14 item 4).
      const embedder = memoizeQueries(model);
      const storeKey = JSON.stringify([config.store, paths.store, config.retrieval.bm25]);
      const instance = await openInstance(loaded, { purpose: 'ask', embedder, store: stores.get(storeKey), log }).catch((err: unknown) => {
        throw labelled(spec, err);
      });
      opened.push(instance);
      const { store, generator } = instance;
      stores.set(storeKey, store);
      // On failure `close` below closes this target's generator with the rest.
      const judge: Judge | null = await createJudge(config.eval.judge, { modelsDir: paths.models, log, embedder: model });
      const translator = ownTranslator(config.languages.translator);
      targets.push({
        label: spec.label,
        configSource: [path.relative(root, file), ...spec.overlays, ...spec.overrides.map((o) => `--set ${o}`)],
        config,
        configHash: configHash(config),
        paths,
        store,
        embedder,
        ...(translator ? { translator } : {}),
        generator,
        judge,
        resetCaches() {
          embedder.clear();
          const fresh = ownTranslator(config.languages.translator);
          if (fresh) this.translator = fresh;
        },
      });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { targets, close };
}

/** A target's failure, named after the target (`A: …`, `B: …`): an A/B opens two. */
function labelled(spec: TargetSpec, err: unknown): unknown {
  return err instanceof UserError ? new UserError(`${spec.label}: ${err.message}`, { cause: err }) : err;
}
