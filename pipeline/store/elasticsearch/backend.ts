import fs from 'node:fs';
import path from 'node:path';
import type { CitaConfig } from '../../config/schema.ts';
import type { RebuildTarget, StoreBackend } from '../store.ts';
import type { ElasticsearchStoreOptions } from './elasticsearchStore.ts';

/**
 * The Elasticsearch index's lifecycle: per collection one generation behind an alias, created on
 * first open; a rebuild builds new generations behind no alias and moves every alias at once. The
 * client is loaded only when an Elasticsearch instance is used.
 */
export function elasticsearchBackend(options: (dims: number) => Promise<ElasticsearchStoreOptions>): StoreBackend {
  const store = () => import('./elasticsearchStore.ts').then((m) => m.ElasticsearchStore);
  /** The meta, or null when there is no index (no meta alias); creates nothing. */
  const readMeta = async () => (await store()).readMeta(await options(1));
  return {
    exists: async () => (await readMeta()) !== null,
    async meta(omit = []) {
      const meta = (await readMeta()) ?? {};
      return Object.fromEntries(Object.entries(meta).filter(([key]) => !omit.includes(key)));
    },
    open: async (dims) => (await store()).open(await options(dims)),
    async rebuild(dims): Promise<RebuildTarget> {
      const rebuilt = await (await store()).openRebuild(await options(dims));
      return {
        store: rebuilt,
        commit: () => rebuilt.commitRebuild().finally(() => rebuilt.close()),
        discard: () => rebuilt.discardRebuild().finally(() => rebuilt.close()),
      };
    },
  };
}

/**
 * The Elasticsearch store's options from `store.elasticsearch`: credentials from the environment
 * variables it names (never from the file), the CA file relative to the project root.
 */
export async function elasticsearchOptions(
  config: CitaConfig,
  paths: { root: string },
  dims: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ElasticsearchStoreOptions> {
  const { clientOptionsFromEnv } = await import('./elasticsearchStore.ts');
  const es = config.store.elasticsearch;
  const caFile = es.caFile === undefined ? undefined : path.isAbsolute(es.caFile) ? es.caFile : path.join(paths.root, es.caFile);
  if (caFile !== undefined && !fs.existsSync(caFile)) throw new Error(`store.elasticsearch.caFile: ${caFile} does not exist`);
  const client = await clientOptionsFromEnv(
    {
      url: es.url,
      apiKeyEnv: es.apiKeyEnv,
      usernameEnv: es.usernameEnv,
      passwordEnv: es.passwordEnv,
      caFile,
      rejectUnauthorized: es.rejectUnauthorized,
      requestTimeoutMs: es.requestTimeoutMs,
      maxRetries: es.maxRetries,
    },
    env,
  );
  return { dims, instance: config.name, client, analyzer: es.analyzer, prefix: es.prefix, shards: es.shards, replicas: es.replicas };
}
