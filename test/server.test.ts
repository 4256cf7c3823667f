import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from './support/cli.ts';
import { root } from './support/paths.ts';
import { ASK, gql, gqlFrom, gqlSent, makeServedProject, serve, type Served } from './support/server.ts';

/** `cita serve` end to end over real HTTP: real model, embedded SQLite store, extractive answers. */

const KEY = 'test-key-123';
const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;

describe('cita serve: GraphQL API', () => {
  let p: TestProject;
  let s: Served;
  beforeAll(async () => {
    p = makeServedProject();
    s = await serve(p, [], { CITA_API_KEY: KEY });
  });
  afterAll(async () => {
    await s?.stop();
    p?.cleanup();
  });

  const ask = async (question: string, options?: Record<string, unknown>) => {
    const r = await gql(s.url, ASK, { instance: 'demo', question, options });
    expect(r.body.errors).toBeUndefined();
    expect(r.status).toBe(200);
    return r.body.data.ask;
  };

  it('lists the configured instances with their index status', async () => {
    const r = await gql(s.url, '{ instances { name indexed model lastIndexed storeKind totalChunks chunks { collection chunks } job { id } } }');
    const [demo, empty] = [r.body.data.instances.find((i: any) => i.name === 'demo'), r.body.data.instances.find((i: any) => i.name === 'empty')];
    expect(demo).toMatchObject({ indexed: true, storeKind: 'sqlite', job: null });
    expect(demo.model).toMatch(/multilingual-e5-small/);
    expect(Date.parse(demo.lastIndexed)).toBeGreaterThan(0);
    expect(demo.chunks.map((c: any) => c.collection)).toEqual(['docs', 'code', 'issues']);
    expect(demo.chunks.every((c: any) => c.chunks > 0)).toBe(true);
    expect(demo.totalChunks).toBe(demo.chunks.reduce((a: number, c: any) => a + c.chunks, 0));
    expect(empty).toMatchObject({ indexed: false, totalChunks: 0 });
  });

  it.each([
    ['How do I skip a test on Windows?', 'en', 'According to'],
    ['¿Cómo omito un test en Windows?', 'es', 'Según'],
  ])('answers with resolved citations, route, slots, scored blocks and timings: %s', async (question, lang, lead) => {
    const r = await ask(question);
    expect(r.language).toBe(lang);
    expect(r.answer.text.startsWith(lead)).toBe(true);
    expect(r.answer.text).toContain('skipif');
    expect(r.answer.unsupported).toEqual([]);
    expect(r.answer.invalid).toEqual([]);
    const cited = r.answer.citations.find((c: any) => c.path === 'docs/guide.md');
    expect(cited).toMatchObject({ collection: 'docs', verified: true, headings: ['Guide', 'Skipping tests'] });
    expect(cited.url).toMatch(/^https:\/\/github\.com\/acme\/widgets\/blob\/v1\.0\/docs\/guide\.md#L\d+-L\d+$/);
    expect(cited.snippet).toContain('skipif');
    expect(r.route.top).toBe('docs');
    expect(r.route.reasons.length).toBeGreaterThan(0);
    // A Spanish question over English sources is searched in English too, and the API says how.
    if (lang === 'es') expect(r.route.translation).toMatch(/Windows/);
    else expect(r.route.translation).toBeNull();
    // And its English quotes come with their Spanish machine translation beside the answer.
    if (lang === 'es') {
      expect(r.answer.glossedBy).toBe('apertium');
      expect(r.answer.glosses.length).toBeGreaterThan(0);
      for (const g of r.answer.glosses) expect(r.answer.text).toContain(`${g.quote} [${g.marker}]`);
    } else expect(r.answer).toMatchObject({ glosses: [], glossedBy: null });
    expect(r.route.weights.find((w: any) => w.collection === 'docs').weight).toBe(1);
    expect(r.slots.map((x: any) => x.collection)).toEqual(['docs', 'code', 'issues']);
    expect(r.slots.reduce((a: number, x: any) => a + x.slots, 0)).toBeGreaterThan(0);
    expect(r.blocks[0]).toMatchObject({ marker: 1, citation: { collection: 'docs', path: 'docs/guide.md' }, scores: { via: 'search' } });
    expect(typeof r.blocks[0].scores.fused).toBe('number');
    expect(typeof r.blocks[0].scores.dense).toBe('number');
    expect(r.timings.map((t: any) => t.step)).toEqual(expect.arrayContaining(['embed', 'retrieve', 'generate', 'verify']));
  });

  it('routes an issue question to the issue, looked up directly, with its URL', async () => {
    const r = await ask('Where is the bug from issue #42?');
    expect(r.route.top).toBe('issues');
    expect(r.route.issueLookups).toEqual([42]);
    expect(r.blocks[0]).toMatchObject({ citation: { issue: 42, url: 'https://github.com/acme/widgets/issues/42' }, scores: { via: 'lookup' } });
    expect(r.slots.find((x: any) => x.collection === 'code').query).toContain('Issue #42');
  });

  it('takes per-question options: fusion method, context size, retrieval only', async () => {
    const r = await ask('How do I install widgets?', { fusion: 'rrf', chunks: 2, retrieveOnly: true });
    expect(r.fusionMethod).toBe('rrf');
    expect(r.answer).toBeNull();
    expect(r.blocks.length).toBeLessThanOrEqual(2);
  });

  it('searches chosen collections: hits with citations and BM25, dense and combined scores', async () => {
    const r = await gql(
      s.url,
      'query($q: String!) { search(instance: "demo", query: $q, sources: [code, issues], k: 3) { query alpha hits { rank title snippet score bm25 dense bm25Norm denseNorm citation { collection path startLine endLine symbol issue url } } } }',
      { q: 'parse_config empty file' },
    );
    expect(r.body.errors).toBeUndefined();
    const { hits, alpha } = r.body.data.search;
    expect(alpha).toBe(0.5);
    expect(new Set(hits.map((h: any) => h.citation.collection))).toEqual(new Set(['code', 'issues']));
    const code = hits.find((h: any) => h.citation.symbol === 'parse_config');
    expect(code).toMatchObject({ rank: 1, citation: { path: 'src/loader.py' } });
    expect(code.citation.url).toMatch(/^https:\/\/github\.com\/acme\/widgets\/blob\/v1\.0\/src\/loader\.py#L5-L8$/);
    expect(code.bm25).toBeGreaterThan(0);
    expect(code.dense).toBeGreaterThan(0);
    expect(hits.find((h: any) => h.citation.issue === 42).citation.url).toBe('https://github.com/acme/widgets/issues/42');
    expect(hits.filter((h: any) => h.citation.collection === 'code').length).toBeLessThanOrEqual(3);
  });

  it('searches a query in another language as ask does: translated, and says so', async () => {
    const query = 'query($q: String!) { search(instance: "demo", query: $q, sources: [docs], k: 3) { language translation hits { citation { path } } } }';
    const es = await gql(s.url, query, { q: '¿Cómo omito un test en Windows?' });
    const en = await gql(s.url, query, { q: 'How do I skip a test on Windows?' });
    expect(es.body.errors).toBeUndefined();
    // Before, the API searched it as written while `cita search` translated it.
    expect(es.body.data.search).toMatchObject({ language: 'es', translation: expect.stringMatching(/Windows/) });
    expect(en.body.data.search).toMatchObject({ language: 'en', translation: null });
    expect(es.body.data.search.hits[0].citation.path).toBe('docs/guide.md');
  });

  /** Starts a job with `mutation` while two clients keep asking; every answer must be whole. */
  const reindexWhileAsking = async (mutation: string) => {
    const auth = { authorization: `Bearer ${KEY}` };
    const started = await gql(s.url, mutation, {}, auth);
    expect(started.body.errors).toBeUndefined();
    const job = started.body.data.reindex;
    expect(job.state).toBe('running');
    let done = false;
    const answers: any[] = [];
    const asker = async () => {
      // Keep asking until the job is over, and a few times after the swap.
      for (let after = 0; after < 3; ) {
        const r = await gql(s.url, ASK, { instance: 'demo', question: 'How do I skip a test on Windows?' });
        answers.push(r.body);
        if (done) after++;
      }
    };
    const poll = async () => {
      for (;;) {
        const r = await gql(s.url, 'query($id: ID!) { indexJob(id: $id) { state rebuild phase done total error result { chunks added removed embedded fromCache collections { collection chunks } } } }', { id: job.id });
        const j = r.body.data.indexJob;
        if (j.state !== 'running') {
          done = true;
          return j;
        }
        await new Promise((res) => setTimeout(res, 50));
      }
    };
    const [finished] = await Promise.all([poll(), asker(), asker()]);
    expect(finished.error).toBeNull();
    expect(finished.state).toBe('succeeded');
    expect(answers.length).toBeGreaterThanOrEqual(6);
    for (const a of answers) {
      expect(a.errors).toBeUndefined();
      expect(a.data.ask.answer.text.length).toBeGreaterThan(0);
      expect(a.data.ask.answer.citations.length).toBeGreaterThan(0);
    }
    return { job, finished };
  };
  const totalChunks = async () => (await gql(s.url, '{ instances { name totalChunks } }')).body.data.instances.find((i: any) => i.name === 'demo').totalChunks;

  it('re-indexes in the background while another client keeps asking: no errors, no empty answers', async () => {
    p.write('docs/deploy.md', '# Deploying\n\n## Containers\n\nBuild the container image with the widgets-docker command, then push it to your registry.\n');
    const before = await totalChunks();
    const { job, finished } = await reindexWhileAsking('mutation { reindex(instance: "demo") { id state sources rebuild } }');
    expect(job).toMatchObject({ sources: ['docs', 'code', 'issues'], rebuild: false });
    expect(finished.result.added).toBeGreaterThan(0);
    const after = await totalChunks();
    expect(after).toBe(finished.result.chunks);
    expect(after).toBeGreaterThan(before);
    const r = await ask('How do I build the container image?');
    expect(r.answer.citations.some((c: any) => c.path === 'docs/deploy.md')).toBe(true);
  });

  it('rebuilds beside the old index and swaps it in while another client keeps asking', async () => {
    p.write('docs/release.md', '# Releasing\n\n## Tags\n\nTag a release with the widgets-release command and a version number.\n');
    const { job, finished } = await reindexWhileAsking('mutation { reindex(instance: "demo", rebuild: true) { id state sources rebuild } }');
    expect(job.rebuild).toBe(true);
    expect(finished.result.fromCache).toBeGreaterThan(0); // cached vectors reused, only the new file embedded
    expect(finished.result.embedded).toBeLessThan(finished.result.chunks);
    expect(await totalChunks()).toBe(finished.result.chunks);
    const r = await ask('How do I tag a release?');
    expect(r.answer.citations.some((c: any) => c.path === 'docs/release.md')).toBe(true);
  });

  it('re-indexes only the chosen collections, keeping the others', async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    const started = await gql(s.url, 'mutation { reindex(instance: "demo", sources: [docs]) { id sources } }', {}, auth);
    expect(started.body.data.reindex.sources).toEqual(['docs']);
    let j: any;
    do {
      await new Promise((res) => setTimeout(res, 50));
      j = (await gql(s.url, 'query($id: ID!) { indexJob(id: $id) { state error result { removed collections { collection chunks } } } }', { id: started.body.data.reindex.id })).body.data.indexJob;
    } while (j.state === 'running');
    expect(j).toMatchObject({ state: 'succeeded', error: null, result: { removed: 0 } });
    expect(j.result.collections.every((c: any) => c.chunks > 0)).toBe(true);
  });

  describe('errors carry codes and no stack traces', () => {
    const expectCode = async (query: string, code: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
      const r = await gql(s.url, query, variables, headers);
      expect(codeOf(r.body), JSON.stringify(r.body)).toBe(code);
      for (const e of r.body.errors) {
        expect(e.extensions.stacktrace).toBeUndefined();
        expect(JSON.stringify(e)).not.toMatch(/\.ts:\d+|at \w+ \(/);
      }
      return r;
    };

    it('BAD_USER_INPUT: empty or too long question, k out of range, bad options, too costly queries', async () => {
      await expectCode(ASK, 'BAD_USER_INPUT', { instance: 'demo', question: '   ' });
      await expectCode(ASK, 'BAD_USER_INPUT', { instance: 'demo', question: 'why '.repeat(600) });
      await expectCode(ASK, 'BAD_USER_INPUT', { instance: 'demo', question: 'x', options: { fusion: 'magic' } });
      await expectCode(ASK, 'BAD_USER_INPUT', { instance: 'demo', question: 'x', options: { alpha: 2 } });
      await expectCode('{ search(instance: "demo", query: "x", k: 500) { alpha } }', 'BAD_USER_INPUT');
      await expectCode('{ search(instance: "demo", query: "x", k: 0) { alpha } }', 'BAD_USER_INPUT');
      const many = Array.from({ length: 6 }, (_, i) => `a${i}: ask(instance: "demo", question: "x") { language }`).join(' ');
      const costly = await expectCode(`{ ${many} }`, 'BAD_USER_INPUT');
      expect(costly.body.errors[0].message).toMatch(/costs more than 300; at most 300 is allowed/);
    });

    it('BAD_USER_INPUT for a question longer than the model window, in tokens: named, counted, not cut', async () => {
      // 2,000 characters, 4,006 tokens: each ㌀ is アパート to the model's tokenizer.
      const long = '\u3300'.repeat(2000);
      const r = await expectCode(ASK, 'BAD_USER_INPUT', { instance: 'demo', question: long });
      expect(r.body.errors[0].message).toMatch(/^question is 4006 tokens long; at most 512 are allowed \(the window of the embedding model/);
      expect(r.body.errors[0].extensions).toMatchObject({ argument: 'question', limit: 'tokens', tokens: 4006, maxTokens: 512 });
      const search = await expectCode('query($q: String!) { search(instance: "demo", query: $q) { alpha } }', 'BAD_USER_INPUT', { q: long });
      expect(search.body.errors[0].message).toMatch(/^query is 4006 tokens long; at most 512/);
    });

    it('prices ask by the tokens of its question: four long questions cost more than 300, four short ones do not', async () => {
      const long = (i: number) => `Question ${i} of a long burst: ${'how do I skip a test on windows with a marker? '.repeat(38)}`; // 470 tokens
      const fourAsks = `query Four($q0: String!, $q1: String!, $q2: String!, $q3: String!) { ${[0, 1, 2, 3].map((i) => `a${i}: ask(instance: "demo", question: $q${i}, options: { retrieveOnly: true }) { language }`).join(' ')} }`;
      const costly = await expectCode(fourAsks, 'BAD_USER_INPUT', { q0: long(0), q1: long(1), q2: long(2), q3: long(3) });
      // 4 × (ask 60 + 1 + language 1 + 470/16 → 30)
      expect(costly.body.errors[0].message).toBe('operation "Four" costs 368; at most 300 is allowed (ask costs 60 and search 20, plus 1 per 16 tokens of their question or query; every field 1)');
      expect(costly.body.errors[0].extensions.limit).toBe('cost');
      const cheap = await gql(s.url, fourAsks, { q0: 'skip a test', q1: 'install widgets', q2: 'parse_config', q3: 'issue #42' });
      expect(cheap.body.errors).toBeUndefined();
      expect(cheap.body.data.a3.language).toBe('en');
    });

    it('BAD_USER_INPUT for a query nested deeper than the limit', async () => {
      const nested = `{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } instances { name } }`;
      const introspection = await gql(s.url, nested);
      expect(introspection.body.errors).toBeUndefined(); // introspection is bounded by the schema itself
      const { queryLimits } = await import('../api/graphql/limits.ts');
      const { buildSchema, parse, validate } = await import('graphql');
      const schema = buildSchema('type Q { n: N } type N { n: N v: Int } schema { query: Q }');
      const deep = parse(`{ ${'n { '.repeat(9)}v${' }'.repeat(9)} }`);
      const errors = validate(schema, deep, [queryLimits()]);
      expect(errors[0]?.message).toMatch(/10 levels deep; at most 8/);
      expect(validate(schema, parse(`{ ${'n { '.repeat(6)}v${' }'.repeat(6)} }`), [queryLimits()])).toEqual([]);
    });

    it('BAD_USER_INPUT at once for fragments that each spread the previous one twice', async () => {
      // Measured naively, 40 levels cost 2^40 field visits and would hold the process for hours: the
      // check runs in a child process that is killed after 30 s, so a regression fails, never hangs.
      const script = [
        "import { buildSchema, parse, validate } from 'graphql';",
        "import { queryLimits } from './api/graphql/limits.ts';",
        "const schema = buildSchema('type Query { instances: [I] } type I { name: String }');",
        "const f = ['fragment G0 on Query { instances { name } }'];",
        'for (let i = 1; i <= 40; i++) f.push(`fragment G${i} on Query { ...G${i - 1} ...G${i - 1} }`);',
        "const errors = validate(schema, parse(`query Fan { ...G40 } ${f.join(' ')}`), [queryLimits()]);",
        'console.log(errors.map((e) => e.message).join(String.fromCharCode(10)));',
      ].join('\n');
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
      expect(r.signal).toBeNull();
      expect(r.stdout.trim()).toBe('operation "Fan" costs more than 300; at most 300 is allowed (ask costs 60, every field 1)');
      // Through the server, a small fan-out (2^6 spreads) gets the same answer.
      const fragments = ['fragment G0 on Query { instances { name chunks { collection chunks } } }'];
      for (let i = 1; i <= 6; i++) fragments.push(`fragment G${i} on Query { ...G${i - 1} ...G${i - 1} }`);
      const over = await expectCode(`query Fan { ...G6 } ${fragments.join(' ')}`, 'BAD_USER_INPUT');
      expect(over.body.errors[0].message).toMatch(/^operation "Fan" costs more than 300/);
    }, 60_000);

    it('NOT_FOUND: unknown instance, unknown job', async () => {
      await expectCode(ASK, 'NOT_FOUND', { instance: 'nope', question: 'x' });
      await expectCode(ASK, 'NOT_FOUND', { instance: '../config', question: 'x' });
      await expectCode('{ indexJob(id: "no-such-job") { id } }', 'NOT_FOUND');
      await expectCode('mutation { reindex(instance: "nope") { id } }', 'NOT_FOUND', {}, { authorization: `Bearer ${KEY}` });
    });

    it('INDEX_NOT_READY: a configured instance that was never indexed', async () => {
      const r = await expectCode(ASK, 'INDEX_NOT_READY', { instance: 'empty', question: 'x' });
      expect(r.body.errors[0].message).toMatch(/no index yet/);
      await expectCode('{ search(instance: "empty", query: "x") { alpha } }', 'INDEX_NOT_READY');
    });

    it('UNAUTHENTICATED: a mutation without the key or with a wrong one', async () => {
      await expectCode('mutation { reindex(instance: "demo") { id } }', 'UNAUTHENTICATED');
      await expectCode('mutation { reindex(instance: "demo") { id } }', 'UNAUTHENTICATED', {}, { authorization: 'Bearer wrong' });
      await expectCode('mutation { reindex(instance: "demo") { id } }', 'UNAUTHENTICATED', {}, { 'x-api-key': 'wrong' });
    });

    it('CONFLICT: one index job per instance at a time', async () => {
      const r = await expectCode('mutation { a: reindex(instance: "demo") { id } b: reindex(instance: "demo") { id } }', 'CONFLICT', {}, { 'x-api-key': KEY });
      // The first started a job; the second names it (data is null: a failed non-null mutation field nulls it).
      const jobId = r.body.errors[0].extensions.jobId;
      expect(r.body.errors[0].path).toEqual(['b']);
      let state = 'running';
      while (state === 'running') {
        await new Promise((res) => setTimeout(res, 50));
        state = (await gql(s.url, 'query($id: ID!) { indexJob(id: $id) { state } }', { id: jobId })).body.data.indexJob.state;
      }
      expect(state).toBe('succeeded');
    });

    it('CONFLICT: while another process (a `cita index`) holds the index lock, naming it', async () => {
      const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      const lock = path.join(p.dir, '.cita/demo/index.sqlite.lock');
      fs.writeFileSync(lock, JSON.stringify({ pid: holder.pid, host: os.hostname(), since: '2020-01-01T00:00:00.000Z', instance: 'demo' }));
      try {
        const r = await expectCode('mutation { reindex(instance: "demo") { id } }', 'CONFLICT', {}, { 'x-api-key': KEY });
        expect(r.body.errors[0].message).toMatch(new RegExp(`^index busy \\(pid ${holder.pid} since 2020-01-01T00:00:00.000Z\\): another index run of "demo"`));
        const status = await gql(s.url, '{ instances { name job { id } } }');
        expect(status.body.data.instances.find((i: any) => i.name === 'demo').job).toBeNull();
      } finally {
        holder.kill('SIGKILL');
        fs.rmSync(lock, { force: true });
      }
    });

    it('malformed requests: invalid JSON, unknown fields, oversized bodies', async () => {
      const bad = await fetch(`${s.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
      expect(bad.status).toBe(400);
      expect(codeOf(await bad.json())).toBe('BAD_REQUEST');
      await expectCode('{ nothing }', 'GRAPHQL_VALIDATION_FAILED');
      // The schema has no subscription type: a validation error, not an internal one (found by bench/fuzz.ts).
      const sub = await expectCode('subscription { instances { name } }', 'GRAPHQL_VALIDATION_FAILED');
      expect(sub.body.errors[0].message).toBe('this API has no subscriptions: send a query or a mutation');
      const big = await fetch(`${s.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ instances { name } } # ${'x'.repeat(100_000)}` }) });
      expect(big.status).toBe(413);
    });
  });

  it('sends no CORS headers unless origins are configured', async () => {
    const res = await fetch(`${s.url}/graphql`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const post = await gql(s.url, '{ instances { name } }', {}, { origin: 'https://evil.example' });
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves its own page at / with no CDN: no external scripts or styles', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/app.js">');
    expect(html).not.toMatch(/(src|href)="https?:/);
    const js = await (await fetch(`${s.url}/app.js`)).text();
    expect(js).not.toMatch(/import .* from ['"]https?:/);
    expect((await fetch(`${s.url}/app.css`)).status).toBe(200);
    expect((await fetch(`${s.url}/no-such-page`)).status).toBe(404);
  });

  it('takes turns at the model by client: a burst of long questions from one does not hold back another’s ask', async () => {
    // Client A (127.0.0.1) sends 16 distinct questions of 470 tokens at once; once its first answer is
    // back, the other 15 are waiting for the model. Then client B (127.0.0.2) asks a short question.
    // Taking turns, B's model calls each wait for about one of A's; first come first served (or one
    // batch for A's waiting questions), B's ask waited for all 15.
    const long = (i: number) => `Question ${i} of a long burst: ${'how do I skip a test on windows with a marker? '.repeat(38)}`;
    const answered: string[] = [];
    const fromA = Array.from({ length: 16 }, (_, i) =>
      gqlFrom('127.0.0.1', s.url, ASK, { instance: 'demo', question: long(i), options: { retrieveOnly: true } }).then((r) => {
        answered.push(`A${i}`);
        return r;
      }),
    );
    await Promise.race(fromA);
    const b = await gqlFrom('127.0.0.2', s.url, ASK, { instance: 'demo', question: 'How do I skip a test on Windows?' });
    answered.push('B');
    const results = await Promise.all(fromA);
    expect(b.body.errors).toBeUndefined();
    expect(b.body.data.ask.answer.text).toContain('skipif');
    for (const r of results) expect(r.body.errors).toBeUndefined();
    const afterB = answered.length - 1 - answered.indexOf('B');
    expect(afterB, answered.join(' ')).toBeGreaterThanOrEqual(8);
  }, 240_000);

  it('survives a fault of the model: the ask in flight fails with MODEL_UNAVAILABLE (or is retried), the next works, the server stays up', async () => {
    // The model runs in a child process of the server (embedding.isolate: serve): find it, freeze it so
    // the next ask's model call waits in it, then kill it.
    const modelPid = () => {
      // The server's children: the model, and once a Spanish question came the translator's model (textModelChild) and Apertium's pipeline.
      const kids = fs.readFileSync(`/proc/${s.child.pid}/task/${s.child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      const models = kids.filter((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('embeddingChild'));
      expect(models, 'the server has one model process').toHaveLength(1);
      return models[0]!;
    };
    expect((await gql(s.url, ASK, { instance: 'demo', question: 'How do I skip a test on Windows?' })).body.errors).toBeUndefined();
    const before = modelPid();
    process.kill(before, 'SIGSTOP');
    const pending = gql(s.url, ASK, { instance: 'demo', question: `A question the model has not seen: ${'why does the loader retry twice? '.repeat(10)}` });
    // Let the request reach the frozen model (if it has not, the ask simply starts a new process).
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(before, 'SIGKILL');
    const r = await pending;
    if (r.body.errors) {
      expect(r.status).toBe(503);
      expect(r.body.errors[0].extensions.code).toBe('MODEL_UNAVAILABLE');
      expect(r.body.errors[0].message).toMatch(/the embedding process was killed by SIGKILL during this request; the next request starts a new one: try again/);
    } else expect(r.body.data.ask.answer.text.length).toBeGreaterThan(0);
    const next = await gql(s.url, ASK, { instance: 'demo', question: 'How do I skip a test on Windows, once more?' });
    expect(next.body.errors).toBeUndefined();
    expect(next.body.data.ask.answer.text).toContain('skipif');
    expect(modelPid()).not.toBe(before);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('shuts down gracefully: requests in flight are answered, then the process exits cleanly', async () => {
    // Each on a connection of its own, and the stop only once all six are sent (CI, 2026-12-05: ECONNRESET).
    // Through fetch's pool a request could go out on a kept-alive connection as the server's keep-alive
    // timeout closed it (undici drops an idle one after 3 s, the server after 5 s; a loaded machine delays
    // timers), or still be connecting when the signal came: a connection that reaches a server after it
    // stopped listening is a new one, rightly refused.
    const requests = Array.from({ length: 6 }, (_, i) => gqlSent(s.url, ASK, { instance: 'demo', question: `How do I install widgets? (${i})` }));
    const pending = requests.map((r) => r.response);
    await Promise.all(requests.map((r) => r.sent));
    await Promise.race(pending);
    const code = s.stop();
    const results = await Promise.all(pending);
    for (const r of results) {
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data.ask.answer.text.length).toBeGreaterThan(0);
    }
    expect(await code).toBe(0);
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });
});

describe('cita serve --require-key, --cors', () => {
  let p: TestProject;
  let s: Served;
  beforeAll(async () => {
    p = makeServedProject();
    s = await serve(p, ['--require-key', '--cors', 'http://app.example'], { CITA_API_KEY: KEY });
  });
  afterAll(async () => {
    await s?.stop();
    p?.cleanup();
  });

  it('needs the key for queries too when configured', async () => {
    const anon = await gql(s.url, '{ instances { name } }');
    expect(anon.status).toBe(401);
    expect(codeOf(anon.body)).toBe('UNAUTHENTICATED');
    const keyed = await gql(s.url, '{ instances { name } }', {}, { authorization: `Bearer ${KEY}` });
    expect(keyed.body.data.instances.map((i: any) => i.name)).toEqual(['demo', 'empty']);
  });

  it('allows the configured origin only', async () => {
    const ok = await fetch(`${s.url}/graphql`, { method: 'OPTIONS', headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://app.example');
    const other = await fetch(`${s.url}/graphql`, { method: 'OPTIONS', headers: { origin: 'http://other.example', 'access-control-request-method': 'POST' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses to start with --require-key and no key', async () => {
    await expect(serve(p, ['--require-key'], { CITA_API_KEY: '' })).rejects.toThrow(/needs an API key/);
  });
});

/**
 * A raw HTTP/1.1 connection, so the test decides when each request is written on it: `next()` is the
 * next complete response (a 100 Continue counts as one), and fails if the connection closes first.
 */
function rawConnection(port: number): Promise<{ write(text: string): void; next(): Promise<string>; closed: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let buffer = '';
  let closedBy: string | undefined;
  let waiting: (() => void) | undefined;
  socket.on('data', (d: string) => {
    buffer += d;
    waiting?.();
  });
  socket.on('error', (err: NodeJS.ErrnoException) => (closedBy = err.code ?? err.message));
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closedBy ??= 'the server';
      waiting?.();
      resolve();
    }),
  );
  const complete = (): string | undefined => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
    if (Buffer.byteLength(buffer.slice(end + 4)) < length) return undefined;
    const response = buffer.slice(0, end + 4 + length);
    buffer = buffer.slice(response.length);
    return response;
  };
  const next = () =>
    new Promise<string>((resolve, reject) => {
      waiting = () => {
        const response = complete();
        if (response !== undefined) resolve(response);
        else if (closedBy) reject(new Error(`connection closed (${closedBy}) before a complete response; received: ${JSON.stringify(buffer)}`));
        else return;
        waiting = undefined;
      };
      waiting();
    });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => resolve({ write: (text) => socket.write(text), next, closed }));
  });
}

/** Whether a new connection to the port is accepted. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('cita serve: graceful drain on kept-alive connections (#11 follow-up)', () => {
  let p: TestProject;
  let s: Served;
  beforeAll(async () => {
    p = makeProject();
    s = await serve(p);
  });
  afterAll(async () => {
    await s?.stop();
    p?.cleanup();
  });

  it('answers a request sent on an idle kept-alive connection during the drain, with Connection: close, then exits 0', async () => {
    const port = Number(new URL(s.url).port);
    const body = JSON.stringify({ query: '{ instances { name } }' });
    const post = (extra = '') => `POST /graphql HTTP/1.1\r\nhost: cita\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`;
    // In flight for as long as the test wants: the server has the headers (its 100 Continue says so)
    // and waits for a body the test holds back.
    const busy = await rawConnection(port);
    busy.write(post('expect: 100-continue\r\n'));
    expect(await busy.next()).toMatch(/^HTTP\/1\.1 100 /);
    // One request answered on a kept-alive connection, which is then idle.
    const idle = await rawConnection(port);
    idle.write(post() + body);
    const first = await idle.next();
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toMatch(/\r\nconnection: keep-alive\r\n/i);

    const code = s.stop();
    while (await accepts(port)) await new Promise((r) => setTimeout(r, 20));
    // Draining: no new connections, but a request on the open one (a client may have sent it before it
    // knew) is answered, and the response tells the client not to send more on it.
    idle.write(post() + body);
    const late = await idle.next();
    expect(late).toMatch(/^HTTP\/1\.1 200 /);
    expect(late).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(late.slice(late.indexOf('\r\n\r\n') + 4)).data.instances.map((i: any) => i.name)).toEqual(['demo']);
    await idle.closed;
    // The request in flight since before the shutdown is answered too, and its connection closed.
    busy.write(body);
    const held = await busy.next();
    expect(held).toMatch(/^HTTP\/1\.1 200 /);
    expect(held).toMatch(/\r\nconnection: close\r\n/i);
    await busy.closed;
    expect(await code).toBe(0);
  });
});
