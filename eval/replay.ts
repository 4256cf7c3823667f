/**
 * Retrieval once, placement many times: each answerable question of an instance's datasets goes
 * through `ask()` (the same path as `cita ask`, generation off, the rules' route) and what retrieval
 * produced is kept, so routing and fusion schemes can be compared or fitted by re-placing it
 * (`pipeline/answer/ranking.ts` is pure) in seconds. Used by eval/routeReplay.ts and eval/trainRouter.ts.
 *
 * Kept in .cita/replay/<instance>.json by question id and text, for one index generation, model and set of
 * retrieval settings (another retrieves again); `fresh` retrieves again after a change to the retrieval
 * code, which the file does not know about.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadDatasets, type EvalQuestion } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import type { Candidates } from '../pipeline/answer/ranking.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { evidenceFeatures } from '../pipeline/retrieval/learnedRoute.ts';
import { route as routeQuestion, type Route } from '../pipeline/retrieval/router.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { searchedText } from '../pipeline/text/environment.ts';
import { openTargets } from './target.ts';

/** The text `ask` routes for a question: a pasted issue without its environment (`retrieval.environment`). */
export function routedText(config: Pick<CitaConfig, 'retrieval'>, question: string): string {
  return searchedText(question, config.retrieval.environment).text;
}

/**
 * A replayed question's route as the rules give it, and the learned route's features from what its retrieval kept
 * (the fits of its lists, its names' mentions): what `ask` hands the learned route.
 */
export function replayedRoute(config: Pick<CitaConfig, 'retrieval'>, it: ReplayItem): { route: Route; features: Record<string, number> } {
  const route = routeQuestion(routedText(config, it.q.question));
  return { route, features: evidenceFeatures(route, it.candidates.deep, it.candidates.mentions) };
}

export interface ReplayItem {
  dataset: string;
  q: EvalQuestion;
  split: 'dev' | 'test';
  candidates: Candidates;
}

export async function replayItems(
  instance: string,
  options: { datasets?: string[]; fresh?: boolean; log?: (m: string) => void } = {},
): Promise<{ config: CitaConfig; items: ReplayItem[]; retrieved: number }> {
  const log = options.log ?? ((m: string) => console.error(m));
  const root = findRoot();
  // The rules' route: the candidates do not depend on the weights, and a learned route is what is replayed.
  const overrides = ['eval.judge.kind=none', 'retrieval.router.kind=rules'];
  const { targets, close } = await openTargets([{ label: instance, instance, overlays: [], overrides }], root, log);
  const target = targets[0]!;
  const config = target.config;
  const cacheFile = path.join(root, '.cita', 'replay', `${instance}.json`);
  type Kept = { question: string; candidates: Candidates };
  // The settings retrieval reads are part of the key; a change to the code is not (`fresh`).
  const settings = createHash('sha256').update(JSON.stringify([config.retrieval, config.languages, config.answer.budget])).digest('hex').slice(0, 12);
  const index = `${target.embedder.id}|${config.store.kind}:${target.paths.store}:${await target.store.generation()}|${settings}`;
  const saved = !options.fresh && fs.existsSync(cacheFile) ? (JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { index?: string; questions?: Record<string, Kept> }) : {};
  const cache: Record<string, Kept> = saved.index === index ? (saved.questions ?? {}) : {};
  const items: ReplayItem[] = [];
  let retrieved = 0;
  try {
    const sets = loadDatasets(config.eval.datasets, root).filter((d) => !options.datasets || options.datasets.includes(d.name));
    for (const d of sets) {
      for (const q of d.questions) {
        if (!q.gold.answerable || q.gold.files.length === 0) continue;
        let kept = cache[q.id];
        if (!kept || kept.question !== q.question) {
          const deps = { config, store: target.store, embedder: target.embedder, generator: target.generator, checkout: target.paths.checkout, ...(target.translator ? { translator: target.translator } : {}) };
          const r = await ask(deps, q.question, { retrieveOnly: true, keepCandidates: true });
          kept = { question: q.question, candidates: r.candidates! };
          cache[q.id] = kept;
          if (++retrieved % 20 === 0) log(`retrieved ${retrieved}`);
        }
        items.push({ dataset: d.name, q, split: q.split ?? 'dev', candidates: kept.candidates });
      }
    }
  } finally {
    if (retrieved > 0) {
      fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
      fs.writeFileSync(cacheFile, JSON.stringify({ index, questions: cache }));
    }
    await close();
  }
  return { config, items, retrieved };
}
