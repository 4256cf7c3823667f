/**
 * The contract every Store implementation passes: one suite, run by each implementation's test file
 * (`storeContract('sqlite', …)` in sqlite-store.test.ts; Elasticsearch later).
 *
 * Hand-made chunks with small seeded vectors; knn is checked against cosine computed here.
 * Assertions are about behaviour a caller relies on, not about one engine's scores.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexChangedError, type Store } from '../pipeline/store/store.ts';
import type { Chunk, Citation, Collection, ScoredChunk, StoredChunk } from '../pipeline/types.ts';
import { mulberry32, seedOf } from './support/prng.ts';

export const CONTRACT_DIMS = 8;

/** `bm25MaxTerms`, `bm25CommonCutoff`: the store's `retrieval.bm25` options (`maxTerms`, `commonCutoff`). */
export type MakeStore = (options: { dims: number; bm25MaxTerms?: number; bm25CommonCutoff?: number }) => Promise<Store>;
/** Called after each test, once the store is closed: remove files, indexes, … */
export type CleanupStore = (store: Store) => Promise<void> | void;


export function randomVector(seed: string, dims = CONTRACT_DIMS): Float32Array {
  const next = mulberry32(seedOf(seed));
  return Float32Array.from({ length: dims }, () => next() * 2 - 1);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

interface ChunkSpec {
  citation?: Partial<Citation>;
  title?: string;
  symbols?: string[];
  tokens?: number;
  vector?: Float32Array;
}

export function makeChunk(id: string, collection: Collection, text: string, spec: ChunkSpec = {}): StoredChunk {
  const chunk: StoredChunk = {
    id,
    collection,
    text,
    // Not derived from the id: ids like `code-parse-config` would add the very words searched for.
    title: spec.title ?? 'Untitled',
    citation: { path: `${collection}/${id}.txt`, startLine: 1, endLine: 10, ...spec.citation },
    tokens: spec.tokens ?? 12,
    vector: spec.vector ?? randomVector(id),
  };
  if (spec.symbols) chunk.symbols = spec.symbols;
  return chunk;
}

/** What `get` returns for a stored chunk: everything but the vector. */
function asChunk(stored: StoredChunk): Chunk {
  const { vector: _vector, ...chunk } = stored;
  return chunk;
}

const ids = (hits: { chunk: Chunk }[]) => hits.map((h) => h.chunk.id);

/**
 * A small repository: filler chunks in every collection keep term statistics meaningful (a term in
 * more than half of a tiny collection has no weight in bm25).
 */
function corpus(): StoredChunk[] {
  const fillerWords = ['install', 'release', 'changelog', 'license', 'contributors', 'tutorial', 'overview', 'roadmap'];
  const filler = (['docs', 'code', 'issues'] as const).flatMap((collection) =>
    fillerWords.map((w, i) => makeChunk(`${collection}-filler-${i}`, collection, `The ${w} page of the project, number ${i}.`)),
  );
  return [
    ...filler,
    makeChunk('code-parse-config', 'code', 'def parse_config(path):\n    return yaml.safe_load(open(path))', {
      citation: { path: 'src/config.py', startLine: 10, endLine: 11, symbol: 'parse_config' },
      title: 'src/config.py:parse_config',
      symbols: ['parse_config'],
    }),
    makeChunk('code-load-config', 'code', 'export function loadConfig(file: string) {\n  return read(file);\n}', {
      citation: { path: 'src/load.ts', startLine: 3, endLine: 5, symbol: 'loadConfig' },
      title: 'src/load.ts:loadConfig',
      symbols: ['loadConfig'],
    }),
    makeChunk('code-http-server', 'code', 'class HTTPServer:\n    def serve_forever(self):\n        pass', {
      citation: { path: 'src/server.py', startLine: 1, endLine: 3, symbol: 'HTTPServer' },
      symbols: ['HTTPServer', 'HTTPServer.serve_forever'],
    }),
    makeChunk('docs-sesion', 'docs', 'La configuracion de los marcadores se lee al iniciar la sesion de pruebas.', {
      citation: { path: 'doc/es/marcadores.md', startLine: 4, endLine: 9, headings: ['Guía', 'Marcadores'] },
      title: 'Guía > Marcadores',
    }),
    makeChunk('docs-paralelo', 'docs', 'Cómo ejecutar las pruebas en paralelo con varios procesos.', {
      citation: { path: 'doc/es/paralelo.md', startLine: 1, endLine: 3, headings: ['Paralelo'] },
    }),
    makeChunk('docs-skipping', 'docs', 'How to skip tests: use the skip marker with a reason.', {
      citation: { path: 'doc/en/how-to/skipping.rst', startLine: 20, endLine: 31, headings: ['How-to', 'Skipping tests'] },
      title: 'How-to > Skipping tests',
    }),
    makeChunk('issues-skip', 'issues', 'The skip marker ignores the reason when the test is parametrized.', {
      citation: { path: '#5103', startLine: 1, endLine: 4, issue: 5103, url: 'https://github.com/pytest-dev/pytest/issues/5103' },
    }),
  ];
}

/** Collections the history test spreads its chunks over (one chunk may move between them). */
const HISTORY_COLLECTIONS: Collection[] = ['docs', 'code'];
const HISTORY_WORDS = ['fixture', 'marker', 'plugin', 'capture', 'report', 'session', 'assert', 'config', 'node', 'cache'];
const HISTORY_QUERIES = [...HISTORY_WORDS, 'fixture marker', 'plugin report cache', 'session node assert config'];
/** Vectors several chunks share exactly, so kNN has ties at the top and at the cut. */
const sharedVectors = (seed: number) => [0, 1, 2].map((i) => randomVector(`history-${seed}-shared-${i}`));
const historyVectors = (seed: number) => [...sharedVectors(seed), ...[0, 1, 2].map((i) => randomVector(`history-${seed}-query-${i}`))];

/**
 * Chunks for the history test, with deliberate ties: every fourth repeats an earlier chunk's text (an
 * equal BM25 score), every third has one of three shared vectors (an equal similarity). `variant`
 * gives another version of a chunk (other text and vector, sometimes another collection) for replaces.
 */
function historyPool(seed: number): { pool: StoredChunk[]; variant: (c: StoredChunk) => StoredChunk } {
  const next = mulberry32(seed);
  const words = (n: number) => Array.from({ length: n }, () => HISTORY_WORDS[Math.floor(next() ** 2 * HISTORY_WORDS.length)]).join(' ');
  const shared = sharedVectors(seed);
  const pool: StoredChunk[] = [];
  for (let i = 0; i < 40; i++) {
    const id = `h${String(i).padStart(2, '0')}`;
    const collection = HISTORY_COLLECTIONS[i % 5 === 0 ? 1 : 0]!;
    const twin = i % 4 === 3 ? pool[i - 2] : undefined;
    const text = twin && twin.collection === collection ? twin.text : words(3 + Math.floor(next() * 8));
    const vector = i % 3 === 0 ? shared[i % 9 === 0 ? 0 : i % 2 === 0 ? 1 : 2]! : randomVector(`history-${seed}-${id}`);
    pool.push(makeChunk(id, collection, text, { vector, title: twin ? twin.title : `Title ${HISTORY_WORDS[i % 3]}` }));
  }
  const variant = (c: StoredChunk): StoredChunk => {
    const collection = next() < 0.2 ? HISTORY_COLLECTIONS.find((x) => x !== c.collection)! : c.collection;
    const vector = next() < 0.5 ? shared[Math.floor(next() * shared.length)]! : randomVector(`${c.id}-${next()}`);
    return makeChunk(c.id, collection, words(2 + Math.floor(next() * 6)), { vector, title: c.title });
  };
  return { pool, variant };
}

export function storeContract(name: string, makeStore: MakeStore, cleanup?: CleanupStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore({ dims: CONTRACT_DIMS });
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.(store);
    });

    describe('upsert and get', () => {
      it('returns every field but the vector, in the order asked, skipping unknown ids', async () => {
        const doc = makeChunk('d1', 'docs', 'Skipping tests', {
          citation: { path: 'doc/en/skipping.rst', startLine: 5, endLine: 40, headings: ['How-to', 'Skipping tests'] },
          title: 'How-to > Skipping tests',
          tokens: 321,
        });
        const code = makeChunk('c1', 'code', 'class Session:\n    def run(self): ...', {
          citation: { path: 'src/_pytest/main.py', startLine: 100, endLine: 160, symbol: 'Session' },
          symbols: ['Session', 'Session.run'],
          tokens: 77,
        });
        const comment = makeChunk('i1', 'issues', 'Same here on Windows.', {
          citation: { path: '#42', startLine: 12, endLine: 12, issue: 42, commentId: 9001, url: 'https://example.org/42#9001' },
        });
        await store.upsert([doc, code, comment]);
        expect(await store.get(['i1', 'd1', 'missing', 'c1'])).toEqual([asChunk(comment), asChunk(doc), asChunk(code)]);
        expect(await store.get([])).toEqual([]);
        const [gotCode] = await store.get(['c1']);
        expect(gotCode?.symbols).toEqual(['Session', 'Session.run']);
        expect(gotCode?.tokens).toBe(77);
        expect((await store.get(['d1']))[0]).not.toHaveProperty('symbols');
      });

      it('accepts empty change sets', async () => {
        await store.upsert([]);
        await store.delete([]);
        await store.delete(['never-stored']);
        await store.apply({ upsert: [], delete: [] });
        expect(await store.count()).toBe(0);
      });

      it('rejects a vector of the wrong dimension, naming the chunk', async () => {
        const bad = makeChunk('bad-dims', 'docs', 'text', { vector: new Float32Array(CONTRACT_DIMS + 1) });
        await expect(store.upsert([bad])).rejects.toThrow(/bad-dims/);
        expect(await store.count()).toBe(0);
      });

      // Cosine similarity cannot score a vector without a direction: Elasticsearch refused it while
      // SQLite stored it (and scored it NaN). Both refuse it now, the whole set with it.
      it.each([
        ['zero', new Float32Array(CONTRACT_DIMS)],
        ['NaN', Float32Array.from({ length: CONTRACT_DIMS }, (_, i) => (i === 3 ? NaN : 0.5))],
        ['infinite', Float32Array.from({ length: CONTRACT_DIMS }, (_, i) => (i === 0 ? Infinity : 0.5))],
      ])('rejects a %s vector, naming the chunk, and writes nothing of the set', async (_, vector) => {
        const good = makeChunk('fine', 'docs', 'a searchable text');
        const bad = makeChunk('no-direction', 'docs', 'another text', { vector });
        await expect(store.upsert([good, bad])).rejects.toThrow(/no-direction.*zero or non-finite/);
        expect(await store.count()).toBe(0);
      });

      it('rejects a chunk of an unknown collection, naming it', async () => {
        const bad = makeChunk('elsewhere', 'wiki' as Collection, 'text');
        await expect(store.upsert([bad])).rejects.toThrow(/elsewhere.*collection "wiki"/);
        expect(await store.count()).toBe(0);
      });
    });

    describe('bm25', () => {
      beforeEach(async () => {
        await store.upsert(corpus());
      });

      it.each([
        ['parse', 'code-parse-config'],
        ['parse_config', 'code-parse-config'],
        ['loadConfig', 'code-load-config'],
        ['load', 'code-load-config'],
        ['http server', 'code-http-server'],
        ['HTTPServer', 'code-http-server'],
        ['serve_forever', 'code-http-server'],
      ])('finds code by identifier parts: %j → %s first', async (query, first) => {
        const hits = await store.bm25('code', query, 5);
        expect(hits[0]?.chunk.id).toBe(first);
      });

      it('finds `config` in chunks that only say parse_config and loadConfig', async () => {
        const found = ids(await store.bm25('code', 'config', 10));
        expect(found.sort()).toEqual(['code-load-config', 'code-parse-config']);
      });

      it('scores higher for better matches and returns at most k', async () => {
        const hits = await store.bm25('code', 'parse config', 10);
        expect(hits[0]?.chunk.id).toBe('code-parse-config');
        for (const [i, hit] of hits.entries()) {
          expect(Number.isFinite(hit.score)).toBe(true);
          if (i > 0) expect(hit.score).toBeLessThanOrEqual(hits[i - 1]!.score);
        }
        expect(await store.bm25('docs', 'the page of the project', 3)).toHaveLength(3);
      });

      it('searches only the collection asked', async () => {
        const docs = await store.bm25('docs', 'skip marker reason', 10);
        const issues = await store.bm25('issues', 'skip marker reason', 10);
        expect(ids(docs)).toContain('docs-skipping');
        expect(docs.every((h) => h.chunk.collection === 'docs')).toBe(true);
        expect(ids(issues)).toEqual(['issues-skip']);
        expect(await store.bm25('code', 'skip marker reason', 10)).toEqual([]);
      });

      it.each([
        ['¿Dónde se lee la configuración de la sesión?', 'docs-sesion'],
        ['CONFIGURACIÓN', 'docs-sesion'],
        ['como ejecutar en paralelo', 'docs-paralelo'],
      ])('matches across Spanish accents: %j → %s', async (query, first) => {
        const hits = await store.bm25('docs', query, 5);
        expect(hits[0]?.chunk.id).toBe(first);
      });

      it('finds an issue by its number as written in a question', async () => {
        await store.upsert([makeChunk('issue-ref', 'issues', 'Regression from #8123 in the collection phase.')]);
        expect(ids(await store.bm25('issues', 'what broke in #8123?', 5))).toEqual(['issue-ref']);
      });

      it.each([
        '"',
        '"unbalanced quote',
        '((( parse',
        'parse AND OR NOT',
        'NEAR(parse config, 2)',
        'title:parse',
        '{text}: config',
        'config*',
        '^parse -config +load',
        "'; DROP TABLE chunks; --",
        '¿¡?!',
        '#5103',
        '🎉 parse 🎉',
        '',
        '   ',
      ])('does not throw on %j', async (query) => {
        const hits = await store.bm25('code', query, 5);
        expect(Array.isArray(hits)).toBe(true);
      });

      it('returns nothing for a query without searchable words', async () => {
        expect(await store.bm25('code', '?!¿ -- ()', 5)).toEqual([]);
      });

      it('counts the chunks holding every word of each set, in the fields bm25 searches (matchCounts)', async () => {
        // `skip` twice in one chunk counts it once; `skipping` is only in its title; accents are folded.
        expect(await store.matchCounts('docs', [['skip'], ['skip', 'marker'], ['skipping'], ['skip', 'paralelo'], ['marcadores', 'sesión'], ['zanzibar'], [], ['?!']])).toEqual([
          1, 1, 1, 0, 1, 0, 0, 0,
        ]);
        // Identifier parts count as bm25 reads them; each collection apart.
        expect(await store.matchCounts('code', [['config'], ['parse', 'config'], ['skip']])).toEqual([2, 1, 0]);
        // Names as a question writes them (the learned route's names:documented): one word of several tokens each.
        expect(await store.matchCounts('code', [['parse_config'], ['yaml.safe_load'], ['parseConfig'], ['serve_forever()'], ['yaml.parse_config']])).toEqual([1, 1, 0, 1, 0]);
        expect(await store.matchCounts('issues', [['skip', 'reason'], ['install']])).toEqual([1, 1]);
        await expect(store.matchCounts('bogus' as Collection, [['skip']])).rejects.toThrow(/bogus/);
      });
    });

    describe('bm25 with phrases (#15: compounds of translated words)', () => {
      beforeEach(async () => {
        await store.upsert([
          makeChunk('d-exit', 'docs', 'pytest ends with an exit code when tests fail'),
          makeChunk('d-apart', 'docs', 'the code you write can exit early'),
          ...Array.from({ length: 5 }, (_, i) => makeChunk(`d-pad-${i}`, 'docs', `padding words ${i}`)),
        ]);
      });
      const score = (hits: ScoredChunk[], id: string) => hits.find((h) => h.chunk.id === id)?.score;

      it('counts the chunks holding a phrase, its words together and in order (phraseCounts)', async () => {
        expect(await store.phraseCounts('docs', ['exit code', 'code exit', 'Exit  Code!', 'exit', 'nowhere here', ''])).toEqual([1, 0, 1, 0, 0, 0]);
        expect(await store.phraseCounts('code', ['exit code'])).toEqual([0]);
        await expect(store.phraseCounts('bogus' as Collection, ['exit code'])).rejects.toThrow(/bogus/);
      });

      it('adds a phrase as one more term, scored only where its words stand together', async () => {
        const words = await store.bm25('docs', 'exit code', 10);
        const both = await store.bm25('docs', 'exit code', 10, ['exit code']);
        expect(ids(words).sort()).toEqual(['d-apart', 'd-exit']);
        expect(ids(both)[0]).toBe('d-exit');
        expect(score(both, 'd-exit')!).toBeGreaterThan(score(words, 'd-exit')!);
        expect(score(both, 'd-apart')!).toBeCloseTo(score(words, 'd-apart')!, 6);
        // A phrase alone finds only where it stands; a one-word "phrase" is no phrase.
        expect(ids(await store.bm25('docs', '', 10, ['exit code']))).toEqual(['d-exit']);
        expect((await store.bm25('docs', 'exit code', 10, ['exit'])).map((h) => [h.chunk.id, h.score])).toEqual(words.map((h) => [h.chunk.id, h.score]));
      });
    });

    describe('bm25 with bm25MaxTerms (#14 item 4)', () => {
      // Document frequencies in `code`: alpha 5, beta 3, gamma 2, zanzibar 0, among 20 other chunks.
      const chunks = () => [
        ...Array.from({ length: 20 }, (_, i) => makeChunk(`pad-${i}`, 'code', `lorem ipsum padding ${i}`)),
        ...[1, 2, 3, 4].map((i) => makeChunk(`a${i}`, 'code', `alpha only ${i}`)),
        ...[1, 2, 3].map((i) => makeChunk(`b${i}`, 'code', `beta only ${i}`)),
        makeChunk('g1', 'code', 'gamma only'),
        makeChunk('ag', 'code', 'alpha and gamma'),
      ];
      const scored = (hits: ScoredChunk[]) => hits.map((h) => [h.chunk.id, h.score]);

      it('searches a longer query with its rarest terms only, short queries with all', async () => {
        const pruned = await makeStore({ dims: CONTRACT_DIMS, bm25MaxTerms: 2 });
        try {
          await Promise.all([store.upsert(chunks()), pruned.upsert(chunks())]);
          const long = await pruned.bm25('code', 'alpha beta gamma zanzibar', 20);
          // zanzibar matches nothing and alpha is the commonest: beta and gamma are kept.
          expect(ids(long).sort()).toEqual(['ag', 'b1', 'b2', 'b3', 'g1']);
          expect(scored(long)).toEqual(scored(await store.bm25('code', 'beta gamma', 20)));
          // Two terms: as without a limit, alpha included.
          const short = await pruned.bm25('code', 'alpha gamma', 20);
          expect(ids(short)).toContain('a1');
          expect(scored(short)).toEqual(scored(await store.bm25('code', 'alpha gamma', 20)));
          // Frequencies follow the content: with five more beta chunks alpha is the rarer of the two.
          const more = [4, 5, 6, 7, 8].map((i) => makeChunk(`b${i}`, 'code', `beta only ${i}`));
          await Promise.all([store.upsert(more), pruned.upsert(more)]);
          expect(scored(await pruned.bm25('code', 'alpha beta gamma zanzibar', 20))).toEqual(scored(await store.bm25('code', 'alpha gamma', 20)));
        } finally {
          await pruned.close();
          await cleanup?.(pruned);
        }
      });
    });

    describe('bm25 with bm25CommonCutoff (#14 item 4)', () => {
      // In `code`, 30 chunks: lorem in 24 (common above a quarter), gamma in 3, alpha in 4.
      const chunks = () => [
        ...Array.from({ length: 20 }, (_, i) => makeChunk(`pad-${i}`, 'code', `lorem ipsum padding ${i}`)),
        ...[1, 2, 3, 4].map((i) => makeChunk(`a${i}`, 'code', `alpha only ${i}`)),
        makeChunk('g1', 'code', 'gamma only'),
        makeChunk('gl', 'code', 'gamma lorem lorem'),
        makeChunk('gal', 'code', 'gamma alpha lorem'),
        ...[1, 2, 3].map((i) => makeChunk(`l${i}`, 'code', `lorem alone ${i}`)),
      ];
      const scored = (hits: ScoredChunk[]) => hits.map((h) => [h.chunk.id, h.score] as const);
      const expectSameScores = (got: ScoredChunk[], want: (readonly [string, number])[]) => {
        expect(ids(got)).toEqual(want.map(([id]) => id));
        for (const [i, [, score]] of scored(got).entries()) expect(score).toBeCloseTo(want[i]![1], 9);
      };

      it('scores only the chunks a rare term matches, each with every term; searches a query of only rare or only common terms whole', async () => {
        const common = await makeStore({ dims: CONTRACT_DIMS, bm25CommonCutoff: 0.25 });
        try {
          await Promise.all([store.upsert(chunks()), common.upsert(chunks())]);
          const exact = scored(await store.bm25('code', 'lorem gamma', 30));
          expect(exact.length).toBe(26);
          // The chunks holding gamma, with the scores and order they have among all: lorem still counts for them.
          const hits = await common.bm25('code', 'lorem gamma', 30);
          expectSameScores(hits, exact.filter(([id]) => ['g1', 'gl', 'gal'].includes(id)));
          // Cut to k as the exact ranking is.
          expectSameScores(await common.bm25('code', 'lorem gamma', 2), exact.slice(0, 2));
          // Only common terms, or only rare ones: as without the cutoff.
          expectSameScores(await common.bm25('code', 'lorem ipsum', 30), scored(await store.bm25('code', 'lorem ipsum', 30)));
          expectSameScores(await common.bm25('code', 'alpha gamma', 30), scored(await store.bm25('code', 'alpha gamma', 30)));
          // Frequencies follow the content: once gamma is in most chunks, both terms are common.
          const more = Array.from({ length: 20 }, (_, i) => makeChunk(`gm${i}`, 'code', `gamma more ${i}`));
          await Promise.all([store.upsert(more), common.upsert(more)]);
          expectSameScores(await common.bm25('code', 'lorem gamma', 60), scored(await store.bm25('code', 'lorem gamma', 60)));
        } finally {
          await common.close();
          await cleanup?.(common);
        }
      });
    });

    describe('knn', () => {
      const collections: Collection[] = ['docs', 'code'];
      const chunks = Array.from({ length: 40 }, (_, i) =>
        makeChunk(`v${i}`, collections[i % 2]!, `vector chunk ${i}`, { vector: randomVector(`vec-${i}`) }),
      );
      const reference = (collection: Collection, query: Float32Array, k: number) =>
        chunks
          .filter((c) => c.collection === collection)
          .map((c) => ({ id: c.id, score: cosine(c.vector, query) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, k);

      beforeEach(async () => {
        await store.upsert(chunks);
      });

      it.each([
        ['docs', 'q1', 5],
        ['code', 'q2', 5],
        ['docs', 'q3', 20],
        ['code', 'q4', 1],
      ] as const)('matches a naive cosine ranking (%s, %s, k=%i)', async (collection, seed, k) => {
        const query = randomVector(seed);
        const hits = await store.knn(collection, query, k);
        const expected = reference(collection, query, k);
        expect(ids(hits)).toEqual(expected.map((e) => e.id));
        for (const [i, hit] of hits.entries()) expect(hit.score).toBeCloseTo(expected[i]!.score, 5);
      });

      it('scores a stored vector 1 against itself, regardless of its length', async () => {
        const target = chunks[6]!;
        const scaled = target.vector.map((x) => x * 3.5);
        const [hit] = await store.knn(target.collection, scaled, 1);
        expect(hit?.chunk.id).toBe(target.id);
        expect(hit?.score).toBeCloseTo(1, 5);
      });

      it('searches only the collection asked', async () => {
        const docs = await store.knn('docs', randomVector('q5'), 100);
        expect(docs).toHaveLength(20);
        expect(docs.every((h) => h.chunk.collection === 'docs')).toBe(true);
        expect(await store.knn('issues', randomVector('q5'), 5)).toEqual([]);
      });

      it('rejects a query vector of the wrong dimension', async () => {
        await expect(store.knn('docs', new Float32Array(CONTRACT_DIMS - 1), 3)).rejects.toThrow(/dimension/i);
      });

      // Elasticsearch refused a zero query vector (cosine) and an unknown collection (no such index)
      // while SQLite returned no hits; both refuse them now, as bm25 refuses an unknown collection.
      it('rejects a zero or non-finite query vector', async () => {
        await expect(store.knn('docs', new Float32Array(CONTRACT_DIMS), 3)).rejects.toThrow(/zero or non-finite/);
        await expect(store.knn('docs', new Float32Array(CONTRACT_DIMS).fill(NaN), 3)).rejects.toThrow(/zero or non-finite/);
      });

      it('rejects an unknown collection, like bm25', async () => {
        await expect(store.knn('wiki' as Collection, randomVector('q6'), 3)).rejects.toThrow(/unknown collection "wiki"/);
        await expect(store.bm25('wiki' as Collection, 'vector', 3)).rejects.toThrow(/unknown collection "wiki"/);
      });

      it('returns nothing for k below 1 or not a number', async () => {
        for (const k of [0, -2, 0.5, NaN]) {
          expect(await store.knn('docs', randomVector('q7'), k)).toEqual([]);
          expect(await store.bm25('docs', 'vector chunk', k)).toEqual([]);
        }
      });
    });

    describe('lookups', () => {
      it('lookupIssue returns the body, then each comment by id, each in order of lines', async () => {
        // As the issue chunker cites them: lines count within the body or the comment.
        const issue = (id: string, startLine: number, commentId?: number) =>
          makeChunk(id, 'issues', `Part ${id}`, {
            citation: { path: '#5103', startLine, endLine: startLine + 3, issue: 5103, ...(commentId ? { commentId } : {}) },
          });
        const body1 = issue('i-body-1', 1);
        const body2 = issue('i-body-2', 30);
        const first = issue('i-c700', 1, 700);
        const second1 = issue('i-c701-1', 1, 701);
        const second2 = issue('i-c701-2', 12, 701);
        const other = makeChunk('i-other', 'issues', 'Another issue', { citation: { path: '#42', startLine: 1, endLine: 2, issue: 42 } });
        await store.upsert([second2, other, body2, first, second1, body1]);
        expect((await store.lookupIssue(5103)).map((c) => c.id)).toEqual(['i-body-1', 'i-body-2', 'i-c700', 'i-c701-1', 'i-c701-2']);
        expect((await store.lookupIssue(42)).map((c) => c.id)).toEqual(['i-other']);
        expect(await store.lookupIssue(999)).toEqual([]);
      });

      describe('lookupSymbol', () => {
        beforeEach(async () => {
          await store.upsert([
            makeChunk('s-fn', 'code', 'def load(): ...', { symbols: ['load'] }),
            makeChunk('s-config', 'code', 'class Config: def load(self): ...', { symbols: ['Config', 'Config.load'] }),
            makeChunk('s-loader', 'code', 'class Loader: def load(self): ...', { symbols: ['Loader.load'] }),
            // Named only by its citation: the chunk is the symbol.
            makeChunk('s-inner', 'code', 'def load(self): ...', { citation: { symbol: 'Outer.Inner.load' } }),
            makeChunk('s-other', 'code', 'def unload(): ...', { symbols: ['unload', 'Loader.reload'] }),
          ]);
        });

        it('finds the exact name first, then qualified names ending in it', async () => {
          const found = (await store.lookupSymbol('load')).map((c) => c.id);
          expect(found[0]).toBe('s-fn');
          expect(found.slice(1).sort()).toEqual(['s-config', 's-inner', 's-loader']);
        });

        it.each([
          ['Config.load', ['s-config']],
          ['Inner.load', ['s-inner']],
          ['Outer.Inner.load', ['s-inner']],
          ['Config', ['s-config']],
          ['Loader.reload', ['s-other']],
          ['reload', ['s-other']],
          ['Load', []],
          ['oad', []],
          ['ig.load', []],
          ['missing', []],
        ])('%j → %j', async (name, expected) => {
          expect((await store.lookupSymbol(name)).map((c) => c.id).sort()).toEqual(expected);
        });
      });
    });

    describe('delete and replace', () => {
      beforeEach(async () => {
        await store.upsert(corpus());
      });

      it('delete removes a chunk from get, bm25, knn, lookups, ids and count', async () => {
        const [target] = corpus().filter((c) => c.id === 'code-parse-config');
        const issue = corpus().find((c) => c.id === 'issues-skip')!;
        const before = await store.count();
        await store.delete(['code-parse-config', 'issues-skip']);
        expect(await store.get(['code-parse-config', 'issues-skip'])).toEqual([]);
        expect(ids(await store.bm25('code', 'parse_config', 10))).not.toContain('code-parse-config');
        expect(ids(await store.knn('code', target!.vector, 50))).not.toContain('code-parse-config');
        expect(ids(await store.knn('issues', issue.vector, 50))).not.toContain('issues-skip');
        expect(await store.lookupSymbol('parse_config')).toEqual([]);
        expect(await store.lookupIssue(5103)).toEqual([]);
        expect(await store.ids('code')).not.toContain('code-parse-config');
        expect(await store.count()).toBe(before - 2);
      });

      it('upserting an existing id replaces it everywhere', async () => {
        const before = await store.count();
        const newVector = randomVector('replacement');
        const replaced = makeChunk('code-parse-config', 'code', 'def read_settings(): ...', {
          symbols: ['read_settings'],
          vector: newVector,
          citation: { path: 'src/settings.py', startLine: 1, endLine: 1 },
        });
        await store.upsert([replaced]);
        expect(await store.count()).toBe(before);
        expect(await store.get(['code-parse-config'])).toEqual([asChunk(replaced)]);
        expect(ids(await store.bm25('code', 'parse_config', 10))).not.toContain('code-parse-config');
        expect(ids(await store.bm25('code', 'read_settings', 10))[0]).toBe('code-parse-config');
        expect(await store.lookupSymbol('parse_config')).toEqual([]);
        expect((await store.lookupSymbol('read_settings')).map((c) => c.id)).toEqual(['code-parse-config']);
        const [nearest] = await store.knn('code', newVector, 1);
        expect(nearest?.chunk.id).toBe('code-parse-config');
        expect(nearest?.score).toBeCloseTo(1, 5);
      });

      it('upserting an existing id into another collection moves it', async () => {
        const moved = makeChunk('issues-skip', 'docs', 'The skip marker, now documented.', { citation: { path: 'doc/skip.md', startLine: 1, endLine: 1 } });
        await store.upsert([moved]);
        expect(ids(await store.bm25('issues', 'skip marker', 10))).toEqual([]);
        expect(ids(await store.bm25('docs', 'skip marker documented', 10))[0]).toBe('issues-skip');
        expect(ids(await store.knn('issues', moved.vector, 50))).not.toContain('issues-skip');
        expect(ids(await store.knn('docs', moved.vector, 1))).toEqual(['issues-skip']);
        expect(await store.lookupIssue(5103)).toEqual([]);
      });

      it('the last of two upserts of one id in a change set wins', async () => {
        const a = makeChunk('dup', 'docs', 'first version');
        const b = makeChunk('dup', 'docs', 'second version');
        await store.upsert([a, b]);
        expect((await store.get(['dup']))[0]?.text).toBe('second version');
        expect(await store.ids('docs')).toContain('dup');
      });

      it('an id both deleted and upserted in one change set ends up present (deletes apply first)', async () => {
        const fresh = makeChunk('docs-skipping', 'docs', 'Skipping, rewritten.');
        await store.apply({ delete: ['docs-skipping'], upsert: [fresh] });
        expect((await store.get(['docs-skipping']))[0]?.text).toBe('Skipping, rewritten.');
      });
    });

    describe('counts, ids and meta', () => {
      it('count and ids per collection and overall', async () => {
        const all = corpus();
        await store.upsert(all);
        const byCollection = (c: Collection) => all.filter((x) => x.collection === c).map((x) => x.id).sort();
        expect(await store.count()).toBe(all.length);
        for (const c of ['docs', 'code', 'issues'] as const) {
          expect(await store.count(c)).toBe(byCollection(c).length);
          expect([...(await store.ids(c))].sort()).toEqual(byCollection(c));
        }
        expect([...(await store.ids())].sort()).toEqual(all.map((x) => x.id).sort());
      });

      it('meta is empty at first and merged by each apply', async () => {
        expect(await store.meta()).toEqual({});
        await store.apply({ upsert: [], delete: [], meta: { model: 'e5-small', dims: '8' } });
        await store.upsert([makeChunk('m1', 'docs', 'text')]);
        expect(await store.meta()).toEqual({ model: 'e5-small', dims: '8' });
        await store.apply({ upsert: [], delete: ['m1'], meta: { dims: '16', indexedAt: '2025-01-01T00:00:00Z' } });
        expect(await store.meta()).toEqual({ model: 'e5-small', dims: '16', indexedAt: '2025-01-01T00:00:00Z' });
      });
    });

    describe('generation (compare-and-swap at commit)', () => {
      it('moves with every apply; a conditional apply planned at an older generation is refused and writes nothing', async () => {
        const planned = await store.generation();
        await store.apply({ upsert: [makeChunk('g-first', 'docs', 'first run')], delete: [], meta: { run: '1' }, ifGeneration: planned });
        const afterFirst = await store.generation();
        expect(afterFirst).not.toBe(planned);
        // Another writer commits, touching only another collection and no meta.
        await store.upsert([makeChunk('g-other', 'code', 'def other_writer(): ...')]);
        const afterOther = await store.generation();
        expect(afterOther).not.toBe(afterFirst);

        // A run that planned before the other writer committed.
        const stale = store.apply({ upsert: [makeChunk('g-stale', 'docs', 'stale plan')], delete: ['g-first'], meta: { run: 'stale' }, ifGeneration: afterFirst });
        await expect(stale).rejects.toThrow(IndexChangedError);
        await expect(stale).rejects.toThrow(/changed while this run was planning.*Nothing was written/);
        expect(await store.generation()).toBe(afterOther);
        expect([...(await store.ids())].sort()).toEqual(['g-first', 'g-other']);
        expect(await store.meta()).toEqual({ run: '1' });

        // Planned again at the current generation, it goes through.
        await store.apply({ upsert: [makeChunk('g-stale', 'docs', 'fresh plan')], delete: ['g-first'], meta: { run: '2' }, ifGeneration: afterOther });
        expect([...(await store.ids())].sort()).toEqual(['g-other', 'g-stale']);
        expect(await store.meta()).toEqual({ run: '2' });
      });
    });

    describe('history', () => {
      // An index updated step by step must rank exactly like a fresh build of the same content: same
      // hits, same order, same scores (float equality), for BM25 and kNN, at every k (#11 item 7).
      it.each([1, 2])('random adds, removes, re-adds and replaces rank like a fresh build (seed %i)', async (seed) => {
        const { pool, variant } = historyPool(seed);
        const next = mulberry32(seed * 7919);
        const pick = <T>(xs: T[], n: number): T[] => {
          const copy = [...xs];
          const out: T[] = [];
          while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]!);
          return out;
        };
        const state = new Map<string, StoredChunk>();
        const initial = pick(pool, 24);
        await store.upsert(initial);
        for (const c of initial) state.set(c.id, c);
        for (let round = 0; round < 6; round++) {
          const present = [...state.keys()];
          const removed = pick(present, 1 + Math.floor(next() * 5));
          const kept = present.filter((id) => !removed.includes(id));
          const added = pick(pool.filter((c) => !state.has(c.id)), Math.floor(next() * 6));
          const replaced = pick(kept, Math.floor(next() * 3)).map((id) => variant(state.get(id)!));
          // Some of the removed ones come back in the same change set (deletes apply first).
          const readded = pick(removed, Math.floor(next() * 2)).map((id) => state.get(id)!);
          const upsert = [...added, ...replaced, ...readded];
          if (next() < 0.5) await store.apply({ upsert, delete: removed });
          else {
            await store.delete(removed);
            await store.upsert(upsert);
          }
          for (const id of removed) state.delete(id);
          for (const c of upsert) state.set(c.id, c);
        }

        // The fresh build inserts the same content in another order (by id, descending).
        const fresh = await makeStore({ dims: CONTRACT_DIMS });
        try {
          await fresh.upsert([...state.values()].sort((a, b) => (a.id < b.id ? 1 : -1)));
          expect([...(await store.ids())].sort()).toEqual([...(await fresh.ids())].sort());
          const scored = (hits: ScoredChunk[]) => hits.map((h) => [h.chunk.id, h.score] as const);
          for (const collection of HISTORY_COLLECTIONS) {
            const searches: [string, (s: Store, k: number) => Promise<ScoredChunk[]>][] = [
              ...HISTORY_QUERIES.map((q) => [`bm25 ${q}`, (s: Store, k: number) => s.bm25(collection, q, k)] as [string, (s: Store, k: number) => Promise<ScoredChunk[]>]),
              ...historyVectors(seed).map((v, i) => [`knn #${i}`, (s: Store, k: number) => s.knn(collection, v, k)] as [string, (s: Store, k: number) => Promise<ScoredChunk[]>]),
            ];
            for (const [what, search] of searches) {
              const all = scored(await search(fresh, 100));
              // Equal scores are ordered by chunk id, so the k best are a prefix of the whole ranking.
              for (let i = 1; i < all.length; i++) {
                const [[prevId, prev], [id, score]] = [all[i - 1]!, all[i]!];
                expect(prev > score || (prev === score && prevId < id), `${collection} ${what}: ${prevId} before ${id}`).toBe(true);
              }
              for (const k of [1, 2, 3, 5, 100]) {
                const label = `${collection} ${what} k=${k}`;
                expect(scored(await search(store, k)), label).toEqual(all.slice(0, k));
                if (k < 100) expect(scored(await search(fresh, k)), label).toEqual(all.slice(0, k));
              }
            }
          }
        } finally {
          await fresh.close();
          await cleanup?.(fresh);
        }
      });
    });

    describe('apply is atomic', () => {
      it('a change set that fails midway leaves no trace and the previous state intact', async () => {
        const before = corpus();
        await store.apply({ upsert: before, delete: [], meta: { run: '1' } });
        const snapshot = {
          count: await store.count(),
          ids: [...(await store.ids())].sort(),
          chunks: await store.get(before.map((c) => c.id)),
          parse: ids(await store.bm25('code', 'parse', 5)),
        };
        const added = [
          makeChunk('new-1', 'docs', 'zanzibar quokka first addition', { vector: randomVector('new-1') }),
          makeChunk('new-2', 'code', 'def zanzibar_quokka(): ...', { symbols: ['zanzibar_quokka'] }),
          makeChunk('code-parse-config', 'code', 'replaced text', { symbols: ['replaced_symbol'] }),
          makeChunk('new-issue', 'issues', 'new issue', { citation: { path: '#777', startLine: 1, endLine: 1, issue: 777 } }),
        ];
        const bad = makeChunk('new-bad', 'docs', 'wrong dimension', { vector: new Float32Array(3) });
        await expect(
          store.apply({ upsert: [...added, bad], delete: ['docs-skipping', 'issues-skip'], meta: { run: '2' } }),
        ).rejects.toThrow(/dimension/i);

        expect(await store.count()).toBe(snapshot.count);
        expect([...(await store.ids())].sort()).toEqual(snapshot.ids);
        expect(await store.get(before.map((c) => c.id))).toEqual(snapshot.chunks);
        expect(await store.get(['new-1', 'new-2', 'new-issue', 'new-bad'])).toEqual([]);
        expect(await store.bm25('docs', 'zanzibar quokka', 5)).toEqual([]);
        expect(await store.bm25('code', 'zanzibar', 5)).toEqual([]);
        expect(ids(await store.bm25('code', 'parse', 5))).toEqual(snapshot.parse);
        expect(ids(await store.knn('docs', randomVector('new-1'), 50))).not.toContain('new-1');
        expect(await store.lookupSymbol('zanzibar_quokka')).toEqual([]);
        expect(await store.lookupSymbol('replaced_symbol')).toEqual([]);
        expect((await store.lookupSymbol('parse_config')).map((c) => c.id)).toEqual(['code-parse-config']);
        expect(await store.lookupIssue(777)).toEqual([]);
        expect((await store.lookupIssue(5103)).map((c) => c.id)).toEqual(['issues-skip']);
        expect(await store.meta()).toEqual({ run: '1' });

        // The same change set without the bad chunk goes through whole.
        await store.apply({ upsert: added, delete: ['docs-skipping', 'issues-skip'], meta: { run: '2' } });
        expect(await store.count()).toBe(snapshot.count + 3 - 2);
        expect(ids(await store.bm25('docs', 'zanzibar quokka', 5))).toEqual(['new-1']);
        expect(await store.meta()).toEqual({ run: '2' });
      });
    });
  });
}
