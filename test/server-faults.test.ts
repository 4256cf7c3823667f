import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../api/addresses.ts';
import { linkable } from '../api/graphql/links.ts';
import { cita, makeProject, type TestProject } from './support/cli.ts';
import { GUIDE, ISSUES, LOADER } from './support/demoRepo.ts';
import { ASK, gql, serve, type Served } from './support/server.ts';

/**
 * `cita serve` facing faults and hostile data (#11 item 8): a damaged index, a broken config, a failed
 * job, rebuilds that swap the index file, a `javascript:` URL in an issues export, a public address.
 * The hashing embedder stands in for the model: nothing here depends on answer quality.
 */

const KEY = 'test-key-456';
const auth = { authorization: `Bearer ${KEY}` };
const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;

const instance = (name: string, extra: string[] = []) =>
  [`name: ${name}`, 'repository:', '  path: repo', '  github: acme/widgets', '  ref: v1.0', 'sources:', '  issues:', '    kind: file', '    file: issues.json', 'embedding:', '  provider: hashing', ...extra, ''].join('\n');

/** An issue whose URL in the export is a script. */
const HOSTILE = { ...ISSUES[0], number: 7, title: 'Widgets flicker on resize', html_url: 'javascript:alert(document.domain)', body: 'Resizing the window makes every widget flicker.' };

describe('cita serve: faults and hostile data', () => {
  let p: TestProject;
  let s: Served;
  beforeAll(async () => {
    p = makeProject();
    p.write('docs/guide.md', GUIDE);
    p.write('src/loader.py', LOADER);
    fs.writeFileSync(path.join(p.dir, 'issues.json'), JSON.stringify([...ISSUES, HOSTILE]));
    p.setInstance(instance('demo'));
    p.setInstance(instance('damaged'), 'damaged');
    p.setInstance(instance('broken', ['chunking:', '  maxTokens: -3']), 'broken');
    p.setInstance(['name: gone', 'repository:', '  path: no-such-checkout', 'embedding:', '  provider: hashing', ''].join('\n'), 'gone');
    for (const name of ['demo', 'damaged']) expect(cita(p, ['index', name]).code).toBe(0);
    s = await serve(p, [], { CITA_API_KEY: KEY });
  });
  afterAll(async () => {
    await s?.stop();
    p?.cleanup();
  });

  const jobOf = async (id: string, headers: Record<string, string> = {}) =>
    (await gql(s.url, 'query($id: ID!) { indexJob(id: $id) { state error } }', { id }, headers)).body.data.indexJob;
  /** Starts a reindex with the key and waits for it to finish. */
  const reindex = async (args: string) => {
    const started = await gql(s.url, `mutation { reindex(${args}) { id } }`, {}, auth);
    expect(started.body.errors).toBeUndefined();
    const id: string = started.body.data.reindex.id;
    let job = await jobOf(id, auth);
    while (job.state === 'running') {
      await new Promise((r) => setTimeout(r, 50));
      job = await jobOf(id, auth);
    }
    return { id, ...job };
  };

  it('a damaged index: INDEX_DAMAGED with HTTP 503, naming the rebuild and not the file; a rebuild through the API repairs it', async () => {
    fs.writeFileSync(path.join(p.dir, '.cita/damaged/index.sqlite'), 'this is not a database');
    const r = await gql(s.url, ASK, { instance: 'damaged', question: 'How do I skip a test?' });
    expect(r.status).toBe(503);
    expect(codeOf(r.body)).toBe('INDEX_DAMAGED');
    expect(r.body.errors[0].message).toBe(
      'the index of "damaged" cannot be used: not an SQLite database; rebuild it with `cita index damaged --rebuild` or the reindex mutation with rebuild: true',
    );
    const search = await gql(s.url, '{ search(instance: "damaged", query: "skip") { alpha } }');
    expect([search.status, codeOf(search.body)]).toEqual([503, 'INDEX_DAMAGED']);

    expect(await reindex('instance: "damaged", rebuild: true')).toMatchObject({ state: 'succeeded', error: null });
    const again = await gql(s.url, ASK, { instance: 'damaged', question: 'How do I skip a test?' });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.ask.blocks.length).toBeGreaterThan(0);
  });

  it('a broken config: callers with the key read the file and line; others do not learn the path', async () => {
    const anon = await gql(s.url, ASK, { instance: 'broken', question: 'anything' });
    expect(codeOf(anon.body)).toBe('INDEX_NOT_READY');
    expect(anon.body.errors[0].message).toMatch(/^the config of this instance is invalid; the file, line and value are shown to callers with the API key/);
    expect(JSON.stringify(anon.body)).not.toContain(p.dir);
    expect(JSON.stringify(anon.body)).not.toContain('broken.yaml');
    const keyed = await gql(s.url, ASK, { instance: 'broken', question: 'anything' }, auth);
    expect(codeOf(keyed.body)).toBe('INDEX_NOT_READY');
    expect(keyed.body.errors[0].message).toContain(`${path.join(p.dir, 'config/instances/broken.yaml')}:13: chunking.maxTokens`);
  });

  it('a failed job: callers with the key read its error; others learn only that it failed', async () => {
    const job = await reindex('instance: "gone"');
    expect(job.state).toBe('failed');
    expect(job.error).toContain(`${path.join(p.dir, 'no-such-checkout')} does not exist`);
    const anon = await jobOf(job.id);
    expect(anon).toEqual({ state: 'failed', error: 'the index job failed; its error is shown to callers with the API key, and in the server log' });
  });

  it('serves only http(s) URLs: the javascript: URL of an exported issue is served as no URL', async () => {
    const r = await gql(s.url, ASK, { instance: 'demo', question: 'What is issue #7 about?' });
    expect(r.body.errors).toBeUndefined();
    const { blocks, answer } = r.body.data.ask;
    const hostile = [...blocks.map((b: any) => b.citation), ...answer.citations].filter((c: any) => c.issue === 7);
    expect(hostile.length).toBeGreaterThan(0);
    for (const c of hostile) expect(c.url).toBeNull();
    const hits = (await gql(s.url, '{ search(instance: "demo", query: "widgets flicker parse_config", sources: [issues]) { hits { citation { issue url } } } }')).body.data.search.hits;
    expect(hits.map((h: any) => h.citation).sort((a: any, b: any) => a.issue - b.issue)).toEqual([
      { issue: 7, url: null },
      { issue: 42, url: 'https://github.com/acme/widgets/issues/42' },
    ]);
    expect(JSON.stringify(r.body)).not.toContain('javascript:');
  });

  it.skipIf(!fs.existsSync('/proc/self/fd'))('closes every index file a rebuild swaps out: none stays open deleted', async () => {
    const dir = fs.realpathSync(path.join(p.dir, '.cita'));
    const openDeleted = () =>
      fs
        .readdirSync(`/proc/${s.child.pid}/fd`)
        .map((fd) => {
          try {
            return fs.readlinkSync(`/proc/${s.child.pid}/fd/${fd}`);
          } catch {
            return ''; // closed meanwhile
          }
        })
        .filter((target) => target.startsWith(dir) && target.endsWith(' (deleted)'));
    for (let i = 0; i < 3; i++) {
      expect(await reindex('instance: "demo", rebuild: true')).toMatchObject({ state: 'succeeded', error: null });
      const r = await gql(s.url, ASK, { instance: 'demo', question: 'How do I skip a test?' });
      expect(r.body.errors).toBeUndefined();
    }
    expect(openDeleted()).toEqual([]);
    // The new index, written through its WAL after the old connections closed, reads back whole.
    p.write('docs/extra.md', '# Extra\n\n## Flags\n\nThe widgets-flag option turns on the extra mode.\n');
    expect(await reindex('instance: "demo"')).toMatchObject({ state: 'succeeded', error: null });
    const r = await gql(s.url, '{ search(instance: "demo", query: "widgets-flag extra mode", sources: [docs], k: 1) { hits { citation { path } } } }');
    expect(r.body.data.search.hits[0].citation.path).toBe('docs/extra.md');
  });

  it('warns on stderr when it listens beyond loopback and queries need no key', async () => {
    const warning = 'cita: warning: listening on 0.0.0.0, which other machines can reach, and queries need no API key';
    const open = await serve(p, ['--host', '0.0.0.0']);
    await open.stop();
    expect(open.stderr()).toContain(warning);
    const keyed = await serve(p, ['--host', '0.0.0.0', '--require-key'], { CITA_API_KEY: KEY });
    await keyed.stop();
    expect(keyed.stderr()).not.toContain('warning');
    const local = await serve(p);
    await local.stop();
    expect(local.stderr()).not.toContain('warning');
  });
});

describe('what counts as private and what as a link', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.1', false],
  ])('isLoopback(%s) → %s', (address, loopback) => {
    expect(isLoopback(address)).toBe(loopback);
  });

  it.each([
    ['https://github.com/acme/widgets/issues/42', true],
    ['http://example.org/x', true],
    ['javascript:alert(1)', false],
    [' JavaScript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['vbscript:msgbox(1)', false],
    ['/relative/path', false],
    ['not a url', false],
  ])('linkable(%s) → %s', (url, ok) => {
    expect(linkable(url)).toBe(ok ? url : undefined);
  });
});
