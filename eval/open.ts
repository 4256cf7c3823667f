import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadJsonl, localizationRecord, type LocalizationRecord } from '../datasets/shared.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance, type InstancePaths } from '../pipeline/instance.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Embedder } from '../pipeline/types.ts';

export interface EvalInstance {
  instance: string;
  config: CitaConfig;
  paths: InstancePaths;
  embedder: Embedder;
  store: Store;
  /** The issue-localization questions of ../shared/datasets, validated. */
  localization: LocalizationRecord[];
  /** `--k N`, when the script takes one. */
  k: number;
  close(): Promise<void>;
}

/** Parses `[instance] [--k N]` and opens the instance's index and model, as `cita ask` does. */
export async function openEvalInstance(argv = process.argv.slice(2), defaultK = 10): Promise<EvalInstance> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { k: { type: 'string' }, json: { type: 'boolean' } } });
  const instance = positionals[0] ?? 'pytest';
  const k = values.k === undefined ? defaultK : Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error(`--k: expected a positive integer, got ${values.k}`);
  const root = findRoot();
  const localization = loadJsonl(path.resolve(root, '../shared/datasets/pytest/issue-localization.jsonl'), localizationRecord);
  const { config, paths, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
  return { instance, config, paths, embedder, store, localization, k, close };
}
