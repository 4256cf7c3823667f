import type { CitaConfig } from '../../pipeline/config/schema.ts';
import { formatEstimate, measureThroughput, recordedThroughput, recordThroughput, sampleChunks, throughputFile } from '../../pipeline/estimate.ts';
import type { IndexSummary } from '../../pipeline/index/indexer.ts';
import type { FileScan } from '../../pipeline/sources/files.ts';
import { COLLECTIONS, type Embedder } from '../../pipeline/types.ts';

/**
 * The estimate `cita init` and `cita index --dry-run` print: files and chunks from a dry run's
 * summary, time from this machine's throughput (recorded by the last index run, or measured now).
 */
export async function estimateText(summary: IndexSummary, config: CitaConfig, root: string, embedder: Embedder, scan: FileScan): Promise<string> {
  let throughput = recordedThroughput(throughputFile(root), embedder.id);
  if (!throughput && summary.plan.embedded > 0) {
    const chunking = { maxTokens: config.chunking.maxTokens, lineWindow: config.chunking.lineWindow };
    throughput = await measureThroughput(embedder, await sampleChunks(scan.documents, embedder, chunking));
  }
  return formatEstimate({
    files: summary.files,
    chunks: summary.chunks,
    toEmbed: summary.plan.embedded,
    fromCache: summary.plan.fromCache,
    byCollection: COLLECTIONS.flatMap((c) => {
      const s = summary.collections[c];
      return s ? [{ collection: c, files: s.files, chunks: s.chunks }] : [];
    }),
    throughput,
  });
}

/** After a real run: keeps its throughput for the next estimate (see recordThroughput). */
export function recordRun(summary: IndexSummary, root: string): void {
  if (summary.dryRun) return;
  try {
    recordThroughput(throughputFile(root), summary.model, summary.plan.embedded, summary.plan.added, summary.seconds);
  } catch {
    // A figure for the next estimate is not worth failing a finished index run over.
  }
}
