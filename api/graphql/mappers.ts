import type { AskResult as PipelineAsk } from '../../pipeline/answer/ask.ts';
import { permalinkFor } from '../../pipeline/answer/citations.ts';
import type { CitaConfig } from '../../pipeline/config/schema.ts';
import { COLLECTIONS, type Chunk, type Citation, type Collection, type SearchHit as PipelineHit } from '../../pipeline/types.ts';
import type { Job } from '../jobs.ts';
import { linkable } from './links.ts';
import { JobState, type AskResult, type IndexJob, type Location, type SearchHit } from './types.ts';

/** Pipeline results → GraphQL shapes; no logic beyond renaming and flattening. */

export function location(config: CitaConfig, collection: Collection, c: Citation): Location {
  const url = linkable(c.url ?? permalinkFor(config.repository.github, config.repository.ref, c.path, c.startLine, c.endLine));
  return { collection, ...c, url };
}

const SNIPPET = 600;
/** The chunk text without its context header line, cut for display. */
export function snippetOf(chunk: Chunk): string {
  const body = chunk.text.split('\n').slice(1).join('\n').trim() || chunk.text;
  return body.length > SNIPPET ? `${body.slice(0, SNIPPET)} …` : body;
}

export function askResult(config: CitaConfig, r: PipelineAsk): AskResult {
  return {
    question: r.question,
    language: r.route.language,
    answer: r.answer && {
      text: r.answer.text,
      language: r.answer.language,
      generator: r.answer.generator,
      noAnswer: Boolean(r.answer.noAnswer),
      citations: r.answer.citations.map((c) => ({ ...c, url: linkable(c.url ?? permalinkFor(config.repository.github, config.repository.ref, c.path, c.startLine, c.endLine)) })),
      invalid: r.answer.invalid,
      unsupported: r.answer.unsupported,
      glosses: r.answer.glosses ?? [],
      ...(r.answer.glossedBy ? { glossedBy: r.answer.glossedBy } : {}),
    },
    route: {
      top: r.route.top,
      language: r.route.language,
      weights: COLLECTIONS.map((c) => ({ collection: c, weight: r.route.weights[c] })),
      issueLookups: r.route.lookups.issues,
      symbolLookups: r.route.lookups.symbols,
      reasons: r.route.reasons,
      ...(r.translation?.text ? { translation: r.translation.text } : {}),
    },
    fusionMethod: r.fusion.method,
    slots: COLLECTIONS.map((c) => ({ collection: c, slots: r.fusion.slots[c] ?? 0, fit: r.fusion.fit[c] ?? 0, query: r.queries[c] ?? r.question })),
    blocks: r.context.blocks.map((b) => ({
      marker: b.marker,
      title: b.chunk.title,
      citation: location(config, b.chunk.collection, b.citation),
      text: b.text,
      scores: { bm25: b.scores.bm25, dense: b.scores.dense, fused: b.scores.fused, via: b.scores.via },
      cut: b.cut,
    })),
    timings: Object.entries(r.timings).map(([step, ms]) => ({ step, ms })),
  };
}

export function searchHits(config: CitaConfig, results: Partial<Record<Collection, PipelineHit[]>>): SearchHit[] {
  // Scores are normalised within a collection, so hits stay grouped by collection, ranked within it.
  return COLLECTIONS.flatMap((c) =>
    (results[c] ?? []).map((h, i) => ({
      rank: i + 1,
      title: h.chunk.title,
      citation: location(config, h.chunk.collection, h.chunk.citation),
      snippet: snippetOf(h.chunk),
      score: h.score,
      bm25: h.bm25,
      dense: h.dense,
      bm25Norm: h.bm25Norm,
      denseNorm: h.denseNorm,
    })),
  );
}

const JOB_ERROR_HIDDEN = 'the index job failed; its error is shown to callers with the API key, and in the server log';

/** `detail`: the caller has the API key, so it may read the job's error (which can name server paths). */
export function indexJob(j: Job, detail: boolean): IndexJob {
  const s = j.summary;
  return {
    id: j.id,
    instance: j.instance,
    sources: j.sources,
    state: JobState[j.state],
    rebuild: j.rebuild,
    phase: j.phase,
    done: j.done,
    total: j.total,
    startedAt: j.startedAt,
    finishedAt: j.finishedAt,
    error: j.error === undefined ? undefined : detail ? j.error : JOB_ERROR_HIDDEN,
    result: s && {
      chunks: s.chunks,
      ...s.plan,
      seconds: s.seconds,
      collections: COLLECTIONS.map((c) => ({ collection: c, chunks: s.collections[c]?.chunks ?? 0 })),
      warnings: s.warnings,
      failed: s.failed.map((f) => `${f.path}: ${f.error}`),
    },
  };
}
