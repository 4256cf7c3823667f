import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkDocument } from './chunking/index.ts';
import { writeJsonAtomic } from './jsonFile.ts';
import type { Chunk, ChunkingOptions, Document, Embedder } from './types.ts';

/**
 * How long an index run will take, before anything is embedded: the chunks it would embed (from a
 * dry run) divided by this machine's throughput. The throughput is the one recorded by the last index
 * run on this machine with the same model (wall time of the whole run, so chunking is included), or,
 * when there is none, measured now by embedding a few real chunks of the repository.
 */

export interface Throughput {
  chunksPerSecond: number;
  /** `last index run` (recorded) or `measured now` (a short timed embedding). */
  source: string;
  /** When it was recorded (ISO), for a recorded figure. */
  at?: string;
  chunks: number;
  seconds: number;
}

interface ThroughputFile {
  [model: string]: { chunks: number; seconds: number; at: string; host: string };
}

/** Runs that embedded fewer chunks say more about start-up costs than about throughput. */
export const MIN_RECORDED_CHUNKS = 32;

/** Where the figures are kept: under the project's .cita (machine-local, not committed). */
export const throughputFile = (root: string) => path.join(root, '.cita', 'throughput.json');

function readFile(file: string): ThroughputFile {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as ThroughputFile) : {};
  } catch {
    return {}; // none yet, or unreadable: measured instead
  }
}

/** The figure of the last index run of `model` on this machine, if one was recorded. */
export function recordedThroughput(file: string, model: string): Throughput | undefined {
  const r = readFile(file)[model];
  if (!r || r.host !== os.hostname() || !(r.chunks >= MIN_RECORDED_CHUNKS) || !(r.seconds > 0)) return undefined;
  return { chunksPerSecond: r.chunks / r.seconds, source: 'last index run', at: r.at, chunks: r.chunks, seconds: r.seconds };
}

/**
 * Keeps an index run's figure (embedded chunks over the run's wall time). Not kept: small runs, and
 * runs that embedded under half their chunks (their time is mostly chunking what was unchanged).
 */
export function recordThroughput(file: string, model: string, chunks: number, totalChunks: number, seconds: number, at = new Date()): boolean {
  if (chunks < MIN_RECORDED_CHUNKS || chunks * 2 < totalChunks || !(seconds > 0)) return false;
  const data = readFile(file);
  data[model] = { chunks, seconds, at: at.toISOString(), host: os.hostname() };
  writeJsonAtomic(file, data);
  return true;
}

/**
 * A few real chunks of the repository: the documents are taken evenly across the scan (not the first
 * ones, which are often alike), chunked as the indexer chunks them.
 */
export async function sampleChunks(documents: readonly Document[], embedder: Embedder, chunking: ChunkingOptions, count = 12): Promise<Chunk[]> {
  const out: Chunk[] = [];
  const step = Math.max(1, Math.floor(documents.length / count));
  for (let i = 0; i < documents.length && out.length < count; i += step) {
    const chunks = await chunkDocument(documents[i]!, embedder, chunking).catch(() => [] as Chunk[]);
    if (chunks.length) out.push(chunks[Math.floor(chunks.length / 2)]!);
  }
  return out;
}

/** Embeds the sample once and times it (one warm-up text first, so model loading is not counted). */
export async function measureThroughput(embedder: Embedder, sample: readonly Chunk[], now = () => performance.now()): Promise<Throughput | undefined> {
  if (sample.length === 0) return undefined;
  await embedder.embedPassages([sample[0]!.text]);
  const start = now();
  await embedder.embedPassages(sample.map((c) => c.text));
  const seconds = (now() - start) / 1000;
  return seconds > 0 ? { chunksPerSecond: sample.length / seconds, source: 'measured now', chunks: sample.length, seconds } : undefined;
}

/** `45 s`, `14 min`, `2 h 05 min`: the precision an estimate deserves. */
export function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

const n = (v: number) => v.toLocaleString('en-US');

export interface EstimateInput {
  files: number;
  chunks: number;
  /** Chunks the run would embed (not in the index, not in the vector cache). */
  toEmbed: number;
  fromCache: number;
  byCollection: { collection: string; files: number; chunks: number }[];
  throughput?: Throughput;
}

/** The lines `cita init` and `cita index --dry-run` print. */
export function formatEstimate(e: EstimateInput): string {
  const per = e.byCollection.map((c) => `${c.collection} ${n(c.files)} files / ${n(c.chunks)} chunks`).join(', ');
  const lines = [`estimate: ${n(e.files)} files, ${n(e.chunks)} chunks${per ? ` (${per})` : ''}`];
  const embed = `${n(e.toEmbed)} to embed${e.fromCache ? `, ${n(e.fromCache)} from the vector cache` : ''}`;
  if (e.toEmbed === 0) lines.push(`  ${embed}: nothing to embed`);
  else if (!e.throughput) lines.push(`  ${embed}; time unknown (no throughput figure for this model on this machine)`);
  else {
    const t = e.throughput;
    const how =
      t.source === 'last index run'
        ? `the last index run on this machine: ${n(t.chunks)} chunks in ${formatDuration(t.seconds)}${t.at ? `, ${t.at.slice(0, 10)}` : ''}`
        : `${t.chunks} chunks of this repository embedded just now`;
    lines.push(`  ${embed}: about ${formatDuration(e.toEmbed / t.chunksPerSecond)} at ${t.chunksPerSecond.toFixed(1)} chunks/s (${how})`);
  }
  return `${lines.join('\n')}\n`;
}
