import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask } from '../pipeline/answer/ask.ts';
import { IndexNotReadyError, openInstance } from '../pipeline/instance.ts';
import { searchQuery } from '../pipeline/retrieval/searchQuery.ts';
import { Sessions } from '../pipeline/session.ts';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { modelTranslatorFor } from '../pipeline/text/modelTranslate.ts';
import { cita, makeProject, type TestProject } from './support/cli.ts';
import { GUIDE, LOADER } from './support/demoRepo.ts';

/**
 * openInstance, the one composition root (#12 item 1): every way in (the CLI, the server's sessions,
 * the evaluation) opens an instance there and fails with the same message for the same problem.
 * The hashing embedder stands in for the model.
 */

const instance = (name: string) =>
  [`name: ${name}`, 'repository:', '  path: repo', 'embedding:', '  provider: hashing', ''].join('\n');

describe('openInstance', () => {
  let p: TestProject;
  const indexFile = (name: string) => path.join(p.dir, '.cita', name, 'index.sqlite');
  beforeAll(() => {
    p = makeProject();
    p.write('docs/guide.md', GUIDE);
    p.write('src/loader.py', LOADER);
    for (const name of ['demo', 'never', 'empty', 'othermodel']) p.setInstance(instance(name), name);
    for (const name of ['demo', 'othermodel']) expect(cita(p, ['index', name]).code).toBe(0);
  });
  afterAll(() => p?.cleanup());

  /** The message each way in gives for `name`: the CLI's search, a server session, openInstance itself. */
  async function messages(name: string) {
    const cli = cita(p, ['search', name, 'skip a test']);
    expect(cli.code).toBe(1);
    const sessions = new Sessions(p.dir);
    const served = await sessions.use(name, async () => 'answered').catch((err: unknown) => err);
    await sessions.close();
    const opened = await openInstance(name, { purpose: 'ask', root: p.dir }).catch((err: unknown) => err);
    expect(served).toBeInstanceOf(IndexNotReadyError);
    expect(opened).toBeInstanceOf(IndexNotReadyError);
    return { cli: cli.stderr.trim(), served: (served as Error).message, opened: (opened as Error).message };
  }

  it('says the same thing everywhere when there is no index yet, and creates none', async () => {
    const m = await messages('never');
    const expected = 'instance "never" has no index yet: run `cita index never` (or the API\'s reindex mutation)';
    expect(m).toEqual({ cli: `cita: ${expected}`, served: expected, opened: expected });
    await expect(openInstance('never', { purpose: 'read', root: p.dir })).rejects.toThrow(expected);
    expect(fs.existsSync(indexFile('never'))).toBe(false);
  });

  it('says the same thing everywhere when the index holds nothing', async () => {
    // An index file with the schema but no run committed (e.g. the first run was interrupted).
    fs.mkdirSync(path.dirname(indexFile('empty')), { recursive: true });
    await SqliteStore.open(indexFile('empty'), { dims: 384 }).close();
    const expected = 'instance "empty" has an empty index: run `cita index empty`';
    expect(await messages('empty')).toEqual({ cli: `cita: ${expected}`, served: expected, opened: expected });
  });

  it('says the same thing everywhere when the index was built with another model', async () => {
    const store = SqliteStore.open(indexFile('othermodel'), { dims: 384 });
    await store.apply({ upsert: [], delete: [], meta: { model: 'e5-other' } });
    await store.close();
    const expected = 'the index of "othermodel" was built with e5-other but the config uses hashing-384: run `cita index othermodel` to re-embed it';
    expect(await messages('othermodel')).toEqual({ cli: `cita: ${expected}`, served: expected, opened: expected });
  });

  it('opens for each purpose what it needs, and close() closes what it opened', async () => {
    const read = await openInstance('demo', { purpose: 'read', root: p.dir });
    expect(read.embedder).toBeUndefined();
    expect(await read.store.count()).toBeGreaterThan(0);
    await read.close();
    await expect(read.store.count()).rejects.toThrow(/not open/);

    const asked = await openInstance('demo', { purpose: 'ask', root: p.dir, overrides: ['retrieval.hybrid.alpha=0.3'] });
    expect(asked.config.retrieval.hybrid.alpha).toBe(0.3);
    expect(asked.embedder.id).toBe('hashing-384');
    expect(asked.generator.id).toBeTruthy();
    await asked.close();

    // Indexing needs no index yet: nothing is opened or created but the model.
    const indexing = await openInstance('never', { purpose: 'index', root: p.dir });
    expect(indexing.store).toBeUndefined();
    expect(indexing.generator).toBeUndefined();
    await indexing.close();
    expect(fs.existsSync(indexFile('never'))).toBe(false);
  });

  it('leaves a model or store it was given open', async () => {
    const first = await openInstance('demo', { purpose: 'search', root: p.dir });
    const second = await openInstance('demo', { purpose: 'search', root: p.dir, embedder: first.embedder, store: first.store });
    await second.close();
    expect(await first.store.count()).toBeGreaterThan(0);
    expect((await first.embedder.embedQueries(['still open']))[0]).toHaveLength(384);
    await first.close();
  });

  it.skipIf(!fs.existsSync('/proc/self/fd'))('Sessions.close() closes a store that was being opened when it was called', async () => {
    const openFiles = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === fs.realpathSync(indexFile('demo'));
        } catch {
          return false;
        }
      });
    const before = openFiles().length;
    const sessions = new Sessions(p.dir);
    const opening = sessions.get('demo');
    await sessions.close();
    await opening;
    expect(openFiles()).toHaveLength(before);
  });

  it('a server’s sessions translate with the server’s model translator (languages.modelTranslator.isolate: serve), not the in-process one', async () => {
    // The model's translation off: nothing is opened, the translator is only chosen.
    p.setInstance(`${instance('served')}retrieval:\n  crossLingual:\n    model: none\n`, 'served');
    expect(cita(p, ['index', 'served']).code).toBe(0);
    const sessions = new Sessions(p.dir);
    try {
      const deps = await sessions.use('served', async (s) => Sessions.askDeps(s));
      const settings = deps.config.languages.modelTranslator;
      expect(settings.isolate).toBe('serve');
      expect(deps.modelTranslator).toBe(modelTranslatorFor(settings, 'serve'));
      expect(deps.modelTranslator).not.toBe(modelTranslatorFor(settings, 'ask'));
      expect((await sessions.load('served')).modelTranslator).toBe(deps.modelTranslator);
      // What the server's ask and search translate with: the session's translator (a stand-in here, the model's translation on).
      const rendering = { by: 'model:stand-in', text: 'How do I install the package?' };
      const standIn = { id: rendering.by, translate: async () => rendering.text };
      await sessions.use('served', async (s) => {
        const config = { ...s.config, retrieval: { ...s.config.retrieval, crossLingual: { ...s.config.retrieval.crossLingual, model: 'dense' as const } } };
        const served = { ...s, config, modelTranslator: standIn };
        expect((await searchQuery(served, '¿Cómo instalo el paquete?', { collections: ['docs'], k: 3 })).translation?.rendering).toEqual(rendering);
        expect((await ask(Sessions.askDeps(served), '¿Cómo instalo el paquete?', { retrieveOnly: true })).translation?.rendering).toEqual(rendering);
      });
    } finally {
      await sessions.close();
    }
  });
});
