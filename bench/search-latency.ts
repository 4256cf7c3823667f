/**
 * Warm `cita search` latency on a real index (#14 goal: p95 ≤ 50 ms): the instance opened once, then
 * each dataset question searched as `cita search <instance> "<q>"` searches it (all collections, the
 * question's language detected, a Spanish one translated), through the product's own two halves
 * (`planQuery`, then `searchCollections`), timed by part: translation, query embedding, the store's
 * hybrid search. English and Spanish apart (only Spanish is translated).
 *
 * The translation part includes choosing the senses the docs prefer (`retrieval.crossLingual.bm25:
 * disambiguated`: each word translated alone, one `matchCounts` call).
 *
 *   node --import tsx bench/search-latency.ts [--instance pytest] [--queries 60] [--rounds 2] [--set key=value]
 */
import { performance } from 'node:perf_hooks';
import { percentile } from '../eval/metrics/percentile.ts';
import { openInstance } from '../pipeline/instance.ts';
import { detectLanguage } from '../pipeline/retrieval/router.ts';
import { searchCollections } from '../pipeline/retrieval/search.ts';
import { planQuery } from '../pipeline/retrieval/searchQuery.ts';
import { COLLECTIONS, type Embedder } from '../pipeline/types.ts';
import { arg } from './support/args.ts';
import { datasetQuestions } from './support/e5-texts.ts';

const instanceName = arg('instance', 'pytest');
const nQueries = Number(arg('queries', '60'));
const rounds = Number(arg('rounds', '2'));
// `--set key=value`: one config override, for a ratio against the default in the same session.
const set = arg('set', '');
const { config, store, embedder, close, paths } = await openInstance(instanceName, { purpose: 'search', ...(set ? { overrides: [set] } : {}) });
const questions = datasetQuestions(paths.root).map((q) => q.text);
// Half English, half Spanish where the datasets have both (detected, as the CLI detects them).
const byLang = { en: [] as string[], es: [] as string[] };
for (const q of questions) {
  const l = detectLanguage(q).language;
  if (byLang[l].length < nQueries / 2) byLang[l].push(q);
}

interface Timing {
  translate: number;
  embed: number;
  store: number;
  total: number;
}
const timings: Record<'en' | 'es', Timing[]> = { en: [], es: [] };

// The query embedding's time, read apart from the store's: the embedder with its calls timed.
let embedMs = 0;
const timedEmbedder: Embedder = Object.create(embedder, {
  embedQueries: {
    value: async (texts: string[]) => {
      const t = performance.now();
      try {
        return await embedder.embedQueries(texts);
      } finally {
        embedMs += performance.now() - t;
      }
    },
  },
});

/** One search as `cita search` makes it (planQuery + searchCollections are searchQuery's two halves), timed by part. */
async function searchOnce(query: string): Promise<Timing> {
  const t0 = performance.now();
  const { plan, alpha } = await planQuery({ config, store }, query);
  const t1 = performance.now();
  embedMs = 0;
  await searchCollections(store, timedEmbedder, query, COLLECTIONS, 10, { ...config.retrieval.hybrid, alpha }, plan);
  const t2 = performance.now();
  return { translate: t1 - t0, embed: embedMs, store: t2 - t1 - embedMs, total: t2 - t0 };
}

// Warm-up: first-call allocations, SQLite page cache, the translator's first start.
for (const q of [...byLang.en.slice(0, 3), ...byLang.es.slice(0, 3)]) await searchOnce(q);
const cpu0 = process.cpuUsage();
for (let r = 0; r < rounds; r++) {
  // Interleaved, so a noisy neighbour hits both languages alike.
  for (let i = 0; i < Math.max(byLang.en.length, byLang.es.length); i++) {
    for (const l of ['en', 'es'] as const) if (byLang[l][i]) timings[l].push(await searchOnce(byLang[l][i]!));
  }
}
const cpu = process.cpuUsage(cpu0);
const n = timings.en.length + timings.es.length;
const f = (xs: number[]) => `p50 ${percentile(xs, 0.5).toFixed(1)} / p95 ${percentile(xs, 0.95).toFixed(1)} ms`;
console.log(`warm search, ${instanceName} (${config.store.kind}${set ? `, ${set}` : ''}), ${n} searches (${rounds} rounds), all collections, k 10`);
for (const l of ['en', 'es'] as const) {
  const t = timings[l];
  if (!t.length) continue;
  console.log(`  ${l} (${t.length}): total ${f(t.map((x) => x.total))}; translate ${f(t.map((x) => x.translate))}, embed ${f(t.map((x) => x.embed))}, store ${f(t.map((x) => x.store))}`);
}
console.log(`  this process's CPU: ${((cpu.user + cpu.system) / 1000 / n).toFixed(1)} ms per search (Apertium runs in a child process, not counted; the language model translator runs in this one)`);
await close();
