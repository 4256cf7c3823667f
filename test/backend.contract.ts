/**
 * The lifecycle every Store backend passes (#12 item 2): exists, meta, open, rebuild and standing,
 * run by each backend's test file against a real file or node. Callers never learn which backend
 * they hold, so what they may rely on is written here once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreBackend } from '../pipeline/store/store.ts';
import { CONTRACT_DIMS, makeChunk } from './store.contract.ts';

export interface BackendUnderTest {
  backend: StoreBackend;
  /** Removes whatever the test created (files, indices). */
  cleanup(): Promise<void> | void;
}

export function backendContract(name: string, make: () => BackendUnderTest): void {
  describe(`StoreBackend contract: ${name}`, () => {
    const made: BackendUnderTest[] = [];
    const fresh = () => {
      const b = make();
      made.push(b);
      return b.backend;
    };
    afterEach(async () => {
      for (const b of made.splice(0)) await b.cleanup();
    });

    it('creates nothing until opened; then exists, with the meta of each apply', async () => {
      const backend = fresh();
      expect(await backend.exists()).toBe(false);
      expect(await backend.meta()).toEqual({});
      expect(await backend.exists()).toBe(false);
      const store = await backend.open(CONTRACT_DIMS);
      expect(await backend.exists()).toBe(true);
      await store.apply({ upsert: [makeChunk('a', 'docs', 'alpha')], delete: [], meta: { model: 'm1', dims: String(CONTRACT_DIMS), files: '{"big": "record"}' } });
      expect(await backend.meta()).toEqual({ model: 'm1', dims: String(CONTRACT_DIMS), files: '{"big": "record"}' });
      expect(await backend.meta(['files'])).toEqual({ model: 'm1', dims: String(CONTRACT_DIMS) });
      expect(await store.standing()).toBe('live');
      await store.close();
    });

    it('rebuild: readers keep the live index until commit, then every new open reads the rebuilt one', async () => {
      const backend = fresh();
      const live = await backend.open(CONTRACT_DIMS);
      await live.apply({ upsert: [makeChunk('old', 'docs', 'the old index')], delete: [], meta: { run: 'old' } });
      const target = await backend.rebuild(CONTRACT_DIMS);
      expect(await target.store.count()).toBe(0);
      await target.store.apply({ upsert: [makeChunk('new', 'docs', 'the rebuilt index')], delete: [], meta: { run: 'new' } });
      expect(await live.ids()).toEqual(['old']);
      expect(await backend.meta()).toEqual({ run: 'old' });
      await target.commit();
      expect(await backend.meta()).toEqual({ run: 'new' });
      const reopened = await backend.open(CONTRACT_DIMS);
      expect(await reopened.ids()).toEqual(['new']);
      // A store opened before the swap either follows it (live) or says it was replaced: never stale and live.
      const standing = await live.standing();
      expect(['live', 'replaced']).toContain(standing);
      if (standing === 'live') expect(await live.ids()).toEqual(['new']);
      await live.close();
      await reopened.close();
    });

    it('rebuild discarded: the live index is untouched', async () => {
      const backend = fresh();
      const live = await backend.open(CONTRACT_DIMS);
      await live.apply({ upsert: [makeChunk('kept', 'docs', 'the live index')], delete: [], meta: { run: 'live' } });
      const target = await backend.rebuild(CONTRACT_DIMS);
      await target.store.apply({ upsert: [makeChunk('dropped', 'docs', 'never published')], delete: [] });
      await target.discard();
      expect(await live.standing()).toBe('live');
      expect(await live.ids()).toEqual(['kept']);
      const reopened = await backend.open(CONTRACT_DIMS);
      expect(await reopened.ids()).toEqual(['kept']);
      expect(await backend.meta()).toEqual({ run: 'live' });
      await live.close();
      await reopened.close();
    });
  });
}
