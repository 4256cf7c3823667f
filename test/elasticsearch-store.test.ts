/**
 * The Store contract against a real Elasticsearch node (never a mock): `npm run es:start` starts one
 * locally (tools/es). The URL comes from CITA_ES_URL (default http://127.0.0.1:9200).
 * Without a node: in CI (CI=true) these tests fail with the reason; locally they are skipped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { clientOptionsFromEnv, ElasticsearchStore, ES_SCHEMA_VERSION } from '../pipeline/store/elasticsearch/elasticsearchStore.ts';
import { IndexChangedError, type Store } from '../pipeline/store/store.ts';
import { elasticsearchBackend } from '../pipeline/store/elasticsearch/backend.ts';
import { backendContract } from './backend.contract.ts';
import { CONTRACT_DIMS, makeChunk, storeContract } from './store.contract.ts';
import { esClient, esUrl, probeNode, reportMissingNode } from './support/elasticsearch.ts';

const url = esUrl;
const client = esClient();
const unavailable = await probeNode(client);

afterAll(async () => {
  await client.close();
});

/** A fresh instance name per store, so tests never see each other's indices. */
const instanceName = () => `test-${randomUUID().slice(0, 8)}`;

// Credentials come from the environment, never from config files. (The local node has no security
// module, so a real 401 cannot be produced here; a secured cluster answers 401 and the store's
// error names the API key / user and password variables.)
describe('clientOptionsFromEnv', () => {
  it('takes an API key first, else basic auth, from the named variables', async () => {
    const env = { ES_KEY: 'a2V5', ES_USER: 'elastic', ES_PASS: 'secret' };
    expect((await clientOptionsFromEnv({ url, apiKeyEnv: 'ES_KEY', usernameEnv: 'ES_USER', passwordEnv: 'ES_PASS' }, env)).auth).toEqual({ apiKey: 'a2V5' });
    expect((await clientOptionsFromEnv({ url, apiKeyEnv: 'NOPE', usernameEnv: 'ES_USER', passwordEnv: 'ES_PASS' }, env)).auth).toEqual({
      username: 'elastic',
      password: 'secret',
    });
    expect((await clientOptionsFromEnv({ url }, env)).auth).toBeUndefined();
  });

  it('refuses a user without a password, naming the variables', async () => {
    await expect(clientOptionsFromEnv({ url, usernameEnv: 'ES_USER', passwordEnv: 'ES_PASS' }, { ES_USER: 'elastic' })).rejects.toThrow(/ES_USER and ES_PASS/);
  });
});

if (unavailable !== null) {
  reportMissingNode('ElasticsearchStore', 'elasticsearch-store.test', unavailable);
} else {
  storeContract(
    'elasticsearch',
    async ({ dims, bm25MaxTerms, bm25CommonCutoff }) => ElasticsearchStore.open({ dims, instance: instanceName(), client, bm25MaxTerms, bm25CommonCutoff }),
    async (store: Store) => {
      await (store as ElasticsearchStore).dropAll();
    },
  );

  backendContract('elasticsearch', () => {
    const instance = instanceName();
    return {
      backend: elasticsearchBackend(async (dims) => ({ dims, instance, client })),
      async cleanup() {
        const store = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client });
        await store.dropAll();
        await store.close();
      },
    };
  });

  describe('ElasticsearchStore (node)', () => {
    it('names an unreachable node clearly', async () => {
      const started = Date.now();
      await expect(
        ElasticsearchStore.open({
          dims: CONTRACT_DIMS,
          instance: instanceName(),
          client: { node: 'http://127.0.0.1:9', requestTimeout: 2000, maxRetries: 0 },
        }),
      ).rejects.toThrow(/unreachable.*es:start/);
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('refuses an index with a conflicting mapping, naming the field, and deletes nothing', async () => {
      const instance = instanceName();
      // An older layout: the alias exists but its vectors have other dimensions and path is text.
      const index = `cita-${instance}-docs-000001`;
      await client.indices.create({
        index,
        mappings: {
          _meta: { cita_schema: ES_SCHEMA_VERSION },
          properties: {
            id: { type: 'keyword' },
            path: { type: 'text' },
            vector: { type: 'dense_vector', dims: 16, similarity: 'cosine' },
          },
        },
        aliases: { [`cita-${instance}-docs`]: {} },
      });
      await client.index({ index, id: 'old', document: { id: 'old', path: 'keep/me.md' }, refresh: true });
      try {
        await expect(ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client })).rejects.toThrow(
          new RegExp(`${index}: mapping conflict on field .*nothing was changed or deleted`),
        );
        expect((await client.count({ index })).count).toBe(1);
        expect(await client.indices.existsAlias({ name: `cita-${instance}-docs` })).toBe(true);
      } finally {
        const names = Object.keys(await client.indices.get({ index: `cita-${instance}-*` }));
        await client.indices.delete({ index: names });
      }
    });

    it('refuses a concrete index where its alias should be, and deletes nothing', async () => {
      const instance = instanceName();
      const index = `cita-${instance}-code`;
      await client.indices.create({ index });
      try {
        await expect(ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client })).rejects.toThrow(/concrete index.*nothing was changed or deleted/);
        expect(await client.indices.exists({ index })).toBe(true);
      } finally {
        const names = Object.keys(await client.indices.get({ index: `cita-${instance}-*` }));
        await client.indices.delete({ index: names });
      }
    });

    it('keeps vectors when a generation is copied, and skips a generation an interrupted run left behind', async () => {
      const instance = instanceName();
      const store = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client });
      try {
        const first = makeChunk('keep', 'code', 'def kept(): ...');
        await store.upsert([first]);
        // As if an apply had died after creating generation 3 and before its swap (2 is current).
        await client.indices.create({ index: `cita-${instance}-code-000003` });
        await store.upsert([makeChunk('other', 'code', 'def other(): ...')]);
        const [hit] = await store.knn('code', first.vector, 1);
        expect(hit?.chunk.id).toBe('keep');
        expect(hit?.score).toBeCloseTo(1, 5);
        expect(Object.keys(await client.indices.getAlias({ name: `cita-${instance}-code` }))).toEqual([`cita-${instance}-code-000004`]);
        expect(await client.indices.exists({ index: `cita-${instance}-code-000003` })).toBe(true);
      } finally {
        await store.close();
        await store.dropAll();
      }
    });

    it('publishes generations without deleted documents, which BM25 would count (#11 item 7)', async () => {
      const instance = instanceName();
      const deleted = async () => (await client.indices.stats({ index: `cita-${instance}-docs`, metric: ['docs'] }))._all.total?.docs?.deleted;
      const text = (i: number) => `chunk ${i} about fixtures, markers and the configuration of plugins `.repeat(1 + (i % 7));
      const batch = (from: number) => Array.from({ length: 40 }, (_, i) => makeChunk(`d${from + i}`, 'docs', text(from + i)));
      const store = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client });
      try {
        // Three applies: three segments, so the deletes below fall in several of them.
        for (const from of [0, 40, 80]) await store.upsert(batch(from));
        await store.apply({
          delete: Array.from({ length: 120 }, (_, i) => `d${i}`).filter((_, i) => i % 5 < 2),
          upsert: [makeChunk('d2', 'docs', 'replaced text'), makeChunk('d3', 'docs', 'another replaced text')],
        });
        expect(await deleted()).toBe(0);
        expect(await store.count('docs')).toBe(72);
      } finally {
        await store.close();
        await store.dropAll();
      }

      // A rebuild writes its generations in place; one that ends up with deletes is compacted before the swap.
      const rebuild = await ElasticsearchStore.openRebuild({ dims: CONTRACT_DIMS, instance, client });
      try {
        await rebuild.upsert(batch(0));
        await rebuild.apply({ delete: ['d1', 'd5'], upsert: batch(0).slice(10, 20) });
        await rebuild.commitRebuild();
        expect(await deleted()).toBe(0);
        expect(await rebuild.count('docs')).toBe(38);
      } finally {
        await rebuild.close();
        await rebuild.dropAll();
      }
    });

    it('queues concurrent applies of one store instead of losing one', async () => {
      const store = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance: instanceName(), client });
      try {
        await Promise.all([
          store.upsert([makeChunk('a', 'docs', 'first writer')]),
          store.upsert([makeChunk('b', 'docs', 'second writer')]),
          store.apply({ upsert: [], delete: [], meta: { k: 'v' } }),
        ]);
        expect([...(await store.ids('docs'))].sort()).toEqual(['a', 'b']);
        expect(await store.meta()).toEqual({ k: 'v' });
      } finally {
        await store.close();
        await store.dropAll();
      }
    });

    it('compare-and-swap: a writer that swaps between our check and our swap fails ours, even on a collection we do not touch', async () => {
      const instance = instanceName();
      const ownClient = esClient();
      const a = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client: ownClient });
      const b = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client });
      try {
        await a.apply({ upsert: [makeChunk('seed', 'docs', 'seed')], delete: [], meta: { run: 'seed' } });
        const planned = await a.generation();
        // b commits right before a's alias swap, after a's check passed: only the swap can notice.
        const indices = ownClient.indices;
        const swap = indices.updateAliases.bind(indices);
        let interleaved = false;
        indices.updateAliases = (async (...args: Parameters<typeof swap>) => {
          if (!interleaved) {
            interleaved = true;
            await b.upsert([makeChunk('from-b', 'code', 'def from_b(): ...')]);
          }
          return swap(...args);
        }) as typeof indices.updateAliases;
        await expect(a.apply({ upsert: [makeChunk('from-a', 'docs', 'a')], delete: ['seed'], meta: { run: 'a' }, ifGeneration: planned })).rejects.toThrow(IndexChangedError);
        expect(interleaved).toBe(true);
        expect([...(await b.ids())].sort()).toEqual(['from-b', 'seed']);
        expect(await b.meta()).toEqual({ run: 'seed' });
        // a's half-built generations are gone: one index per alias remains.
        expect(Object.keys(await client.indices.get({ index: `cita-${instance}-*` })).sort()).toEqual(
          ['code-000002', 'docs-000002', 'issues-000001', 'meta-000002'].map((g) => `cita-${instance}-${g}`),
        );
      } finally {
        await a.close();
        await b.close();
        await b.dropAll();
      }
    });

    it('a rebuild whose swap finds the index moved fails clearly and deletes what it built', async () => {
      const instance = instanceName();
      const live = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance, client });
      const rebuild = await ElasticsearchStore.openRebuild({ dims: CONTRACT_DIMS, instance, client });
      try {
        await rebuild.apply({ upsert: [makeChunk('rebuilt', 'docs', 'rebuilt')], delete: [], meta: { run: 'rebuild' } });
        const indices = client.indices;
        const swap = indices.updateAliases.bind(indices);
        let interleaved = false;
        indices.updateAliases = (async (...args: Parameters<typeof swap>) => {
          indices.updateAliases = swap as typeof indices.updateAliases;
          interleaved = true;
          await live.apply({ upsert: [makeChunk('live', 'docs', 'live')], delete: [], meta: { run: 'live' } });
          return swap(...args);
        }) as typeof indices.updateAliases;
        await expect(rebuild.commitRebuild()).rejects.toThrow(/changed while this run was planning/);
        expect(interleaved).toBe(true);
        expect(await live.ids()).toEqual(['live']);
        expect(Object.keys(await client.indices.get({ index: `cita-${instance}-*` })).sort()).toEqual(
          ['code-000001', 'docs-000003', 'issues-000001', 'meta-000003'].map((g) => `cita-${instance}-${g}`),
        );
      } finally {
        await live.close();
        await live.dropAll();
      }
    });

    it('readers never see an error or an empty result while a writer applies generations', async () => {
      const store = await ElasticsearchStore.open({ dims: CONTRACT_DIMS, instance: instanceName(), client });
      try {
        const base = Array.from({ length: 30 }, (_, i) => makeChunk(`r${i}`, 'docs', `configuration reader chunk ${i}`));
        await store.upsert(base);
        let writing = true;
        const failures: string[] = [];
        let reads = 0;
        const reader = (async () => {
          while (writing) {
            try {
              const hits = await store.bm25('docs', 'configuration', 50);
              const near = await store.knn('docs', base[3]!.vector, 5);
              const got = await store.get(['r0', 'r29']);
              const count = await store.count('docs');
              reads++;
              if (hits.length < 30) failures.push(`bm25 returned ${hits.length} hits`);
              if (near.length !== 5 || near[0]?.chunk.id !== 'r3') failures.push(`knn returned ${near.map((h) => h.chunk.id).join(',')}`);
              if (got.length !== 2) failures.push(`get returned ${got.length} chunks`);
              if (count < 30) failures.push(`count ${count}`);
            } catch (err) {
              failures.push(String(err));
            }
          }
        })();
        for (let round = 0; round < 5; round++) {
          await store.apply({
            upsert: [makeChunk(`w${round}`, 'docs', `configuration written in round ${round}`)],
            delete: round > 0 ? [`w${round - 1}`] : [],
            meta: { round: String(round) },
          });
        }
        writing = false;
        await reader;
        expect(failures).toEqual([]);
        expect(reads).toBeGreaterThan(5);
        expect(await store.meta()).toEqual({ round: '4' });
      } finally {
        await store.close();
        await store.dropAll();
      }
    });
  });
}
