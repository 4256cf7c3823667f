/**
 * `store.kind: elasticsearch` end to end through the real CLI, the real model and a real local
 * Elasticsearch node (`npm run es:start`; URL from CITA_ES_URL, default http://127.0.0.1:9200).
 * Every test uses its own index prefix, so it never sees another test's indices. Without a node:
 * in CI (CI=true) the tests fail with the reason; locally they are skipped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ES_SCHEMA_VERSION } from '../pipeline/store/elasticsearch/elasticsearchStore.ts';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';
import { esClient, esUrl, probeNode, reportMissingNode } from './support/elasticsearch.ts';

const url = esUrl;
const client = esClient();
const unavailable = await probeNode(client);

const prefixes: string[] = [];
/** A fresh index prefix (store.elasticsearch.prefix) and the `--set` flags that select it. */
function esStore(): { prefix: string; sets: string[] } {
  const prefix = `clitest-${randomUUID().slice(0, 8)}`;
  prefixes.push(prefix);
  return { prefix, sets: ['--set', 'store.kind=elasticsearch', '--set', `store.elasticsearch.url=${url}`, '--set', `store.elasticsearch.prefix=${prefix}`] };
}

/** Concrete index names behind an alias (or matching a pattern). */
async function indicesOf(pattern: string): Promise<string[]> {
  return Object.keys(await client.indices.get({ index: pattern, allow_no_indices: true, expand_wildcards: 'all' })).sort();
}

afterAll(async () => {
  for (const prefix of prefixes) {
    const names = await indicesOf(`${prefix}-*`).catch(() => []);
    if (names.length > 0) await client.indices.delete({ index: names, ignore_unavailable: true });
  }
  await client.close();
});

const demoProject = () => makeDemoProject();

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  return stderr;
}

if (unavailable !== null) {
  reportMissingNode('cita with store.kind: elasticsearch', 'cli-elasticsearch.test', unavailable);
} else {
  describe('cita index, search, ask and issue on Elasticsearch', () => {
    let p: TestProject;
    const { prefix, sets } = esStore();
    beforeAll(() => {
      p = demoProject();
    });
    afterAll(() => p.cleanup());

    it('says "no index yet" before the first index run, creating nothing', async () => {
      const r = cita(p, ['search', 'demo', 'parse_config', ...sets]);
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toMatch(/^cita: instance "demo" has no index yet/);
      expect(await indicesOf(`${prefix}-*`)).toEqual([]);
    });

    it('indexes docs, code and issues into per-collection indices behind aliases', async () => {
      const r = cita(p, ['index', 'demo', '--json', ...sets]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.collections.docs.chunks).toBeGreaterThanOrEqual(2);
      expect(s.collections.code.chunks).toBeGreaterThanOrEqual(1);
      expect(s.collections.issues.chunks).toBe(1);
      for (const c of ['docs', 'code', 'issues', 'meta']) expect(await indicesOf(`${prefix}-demo-${c}`)).toHaveLength(1);
      expect((await client.count({ index: `${prefix}-demo-docs,${prefix}-demo-code,${prefix}-demo-issues` })).count).toBe(s.chunks);
    });

    it('searches in English and Spanish with citations', () => {
      for (const q of ['how do I skip a test on Windows', '¿Cómo omito un test en Windows?']) {
        const r = cita(p, ['search', 'demo', q, '--source', 'docs', '--k', '1', '--json', ...sets]);
        expect(r.code).toBe(0);
        const top = JSON.parse(r.stdout).results.docs[0];
        expect(top.chunk.citation).toMatchObject({ path: 'docs/guide.md', headings: ['Guide', 'Skipping tests'] });
      }
      const code = JSON.parse(cita(p, ['search', 'demo', 'config parse', '--source', 'code', '--alpha', '0', '--json', ...sets]).stdout);
      expect(code.results.code[0].chunk.citation.symbol).toBe('parse_config');
    });

    it('answers with verified citations, as on SQLite', () => {
      const r = cita(p, ['ask', 'demo', 'How do I skip a test on Windows?', '--json', ...sets]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.route.top).toBe('docs');
      expect(result.answer.text).toContain('skipif');
      expect(result.answer.invalid).toEqual([]);
      expect(result.answer.citations.find((c: any) => c.path === 'docs/guide.md')).toMatchObject({ verified: true });
      const issue = cita(p, ['issue', 'demo', '#42', '--json', ...sets]);
      expect(issue.code).toBe(0);
      expect(JSON.parse(issue.stdout)[0].citation.issue).toBe(42);
    });

    it('re-indexes incrementally into new generations', async () => {
      const before = await indicesOf(`${prefix}-demo-code`);
      p.write('src/extra.py', 'def shiny_new_function():\n    return 42\n');
      const s = JSON.parse(cita(p, ['index', 'demo', '--json', ...sets]).stdout);
      expect(s.plan).toMatchObject({ added: 1, removed: 0, embedded: 1 });
      const after = await indicesOf(`${prefix}-demo-code`);
      expect(after).toHaveLength(1);
      expect(after).not.toEqual(before);
      // The previous generation is gone once the alias moved; docs were not touched.
      expect(await client.indices.exists({ index: before[0]! })).toBe(false);
      const code = JSON.parse(cita(p, ['search', 'demo', 'shiny_new_function', '--source', 'code', '--json', ...sets]).stdout);
      expect(code.results.code[0].chunk.citation.path).toBe('src/extra.py');
    });

    it('--rebuild builds fresh generations and swaps every alias, reusing cached vectors', async () => {
      const before = await indicesOf(`${prefix}-demo-*`);
      const r = cita(p, ['index', 'demo', '--rebuild', '--json', ...sets]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.plan.added).toBe(s.chunks);
      expect(s.plan.embedded).toBe(0);
      const after = await indicesOf(`${prefix}-demo-*`);
      expect(after).toHaveLength(4);
      expect(after.filter((i) => before.includes(i))).toEqual([]);
      const hit = JSON.parse(cita(p, ['search', 'demo', 'parse_config', '--source', 'code', '--json', ...sets]).stdout).results.code[0];
      expect(hit.chunk.citation.symbol).toBe('parse_config');
    });
  });

  describe('Elasticsearch failures: one clear line, exit 1, nothing deleted', () => {
    let p: TestProject;
    beforeAll(() => {
      p = demoProject();
    });
    afterAll(() => p.cleanup());

    it('names an unreachable node', () => {
      const sets = ['--set', 'store.kind=elasticsearch', '--set', 'store.elasticsearch.url=http://127.0.0.1:1', '--set', 'store.elasticsearch.maxRetries=0'];
      for (const args of [['index', 'demo'], ['search', 'demo', 'parse_config'], ['ask', 'demo', 'how do I skip a test?']]) {
        const r = cita(p, [...args, ...sets]);
        expect(r.code).toBe(1);
        expect(oneLine(r.stderr)).toMatch(/^cita: Elasticsearch at http:\/\/127\.0\.0\.1:1: unreachable \(ECONNREFUSED\) .*es:start/);
      }
    });

    it('refuses a concrete index sitting at the alias name, and keeps it', async () => {
      const { prefix, sets } = esStore();
      const index = `${prefix}-demo-docs`;
      await client.indices.create({ index, mappings: { properties: { text: { type: 'keyword' } } } });
      await client.index({ index, id: 'old', document: { text: 'keep me' }, refresh: true });
      for (const extra of [[], ['--rebuild']]) {
        const r = cita(p, ['index', 'demo', ...extra, ...sets]);
        expect(r.code).toBe(1);
        expect(oneLine(r.stderr)).toMatch(new RegExp(`^cita: Elasticsearch index ${index} at .* is a concrete index, not cita's alias.*nothing was changed or deleted`));
        expect((await client.count({ index })).count).toBe(1);
      }
    });

    it('refuses an old generation with a conflicting mapping, keeps it, and --rebuild replaces it only after the swap', async () => {
      const { prefix, sets } = esStore();
      const old = `${prefix}-demo-code-000001`;
      await client.indices.create({
        index: old,
        mappings: { _meta: { cita_schema: ES_SCHEMA_VERSION }, properties: { id: { type: 'keyword' }, vector: { type: 'dense_vector', dims: 16, similarity: 'cosine' } } },
        aliases: { [`${prefix}-demo-code`]: {} },
      });
      await client.index({ index: old, id: 'old', document: { id: 'old' }, refresh: true });
      const r = cita(p, ['index', 'demo', ...sets]);
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toMatch(new RegExp(`^cita: Elasticsearch index ${old}: mapping conflict on field .*nothing was changed or deleted.*--rebuild`));
      expect((await client.count({ index: old })).count).toBe(1);
      expect(await indicesOf(`${prefix}-demo-code`)).toEqual([old]);

      const rebuilt = cita(p, ['index', 'demo', '--rebuild', '--json', ...sets]);
      expect(rebuilt.stderr).toBe('');
      expect(rebuilt.code).toBe(0);
      expect(await indicesOf(`${prefix}-demo-code`)).toEqual([`${prefix}-demo-code-000002`]);
      const hit = JSON.parse(cita(p, ['search', 'demo', 'parse_config', '--source', 'code', '--json', ...sets]).stdout).results.code[0];
      expect(hit.chunk.citation.symbol).toBe('parse_config');
    });
  });
}
