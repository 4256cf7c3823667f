import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * What a running pipeline runs: the mode's whole translation, its first stage (the analyser), or the translation
 * cut after its bilingual lookup (`lt-proc -b`): `lookup`, the stages up to it, and `generation`, the rest.
 */
export type PipePart = 'translation' | 'analyser' | 'lookup' | 'generation';

/** Whether a stage of a mode is its bilingual lookup (`lt-proc -b …autobil.bin`, `-z` or not). */
export function isBilingualLookup(stage: string): boolean {
  return /^lt-proc\b.*\s-b\s/.test(stage.trim());
}

/** The stages of a pipeline (`a | b | c`) that `part` runs; empty when the mode has no such stages. */
export function partStages(pipeline: string, part: PipePart): string {
  const stages = pipeline.split('|').map((st) => st.trim());
  if (part === 'translation') return stages.join(' | ');
  if (part === 'analyser') return /^lt-proc\b/.test(stages[0] ?? '') ? stages[0]! : '';
  const lookup = stages.findIndex(isBilingualLookup);
  if (lookup < 0 || lookup === stages.length - 1) return '';
  return (part === 'lookup' ? stages.slice(0, lookup + 1) : stages.slice(lookup + 1)).join(' | ');
}

/**
 * One Apertium translation pipeline kept running, texts sent one after another (#14: a new
 * `apertium` per question costs ~0.2 s of process starts and dictionary loads; a running one answers
 * in a few ms). The pipeline is the mode's own, in null-flush mode (`apertium-wblank-mode -z`, the
 * stages the `apertium` script runs, without its gawk wrappers, which hold each text back until the
 * next arrives): each text ends with a blank and NUL, and its translation comes back ending with NUL.
 * `-n` as the generator's option is the script's `-u` (unknown words without the `*` mark).
 * A text that does not come back in time, or a pipeline that dies, fails the texts in flight; the
 * next text starts a new pipeline.
 */
export class ApertiumPipe {
  private proc: ChildProcessWithoutNullStreams | undefined;
  private buffer = '';
  private readonly waiting: { resolve(out: string): void; reject(err: Error): void; timer: NodeJS.Timeout }[] = [];

  private constructor(
    private readonly stages: string,
    private readonly label: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The pipeline of `<modesDir>/<mode>.mode`, or undefined when this Apertium cannot give one (then run
   * `apertium` per text). `analyser`: its first stage alone, the source language's morphological analyser;
   * `lookup` and `generation`: the translation before and after its bilingual lookup (partStages).
   */
  static async open(modesDir: string, mode: string, timeoutMs: number, part: PipePart = 'translation'): Promise<ApertiumPipe | undefined> {
    try {
      const { stdout } = await promisify(execFile)('apertium-wblank-mode', ['-z', path.join(modesDir, `${mode}.mode`)], { timeout: timeoutMs });
      const stages = partStages(stdout.trim(), part);
      return stages ? new ApertiumPipe(stages, `apertium ${mode}${part === 'translation' ? '' : ` (${part})`}`, timeoutMs) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The pipeline's output for `stream` (Apertium's stream format, `-f none`): the translation, or the analyses. */
  translate(stream: string): Promise<string> {
    const proc = this.proc ?? this.start();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`${this.label}: no answer in ${this.timeoutMs} ms`)), this.timeoutMs);
      this.waiting.push({ resolve, reject, timer });
      this.busy(true);
      // A NUL in the text would end it early: the pipeline's separator.
      proc.stdin.write(`${stream.replaceAll('\0', ' ')}\n\0`);
    });
  }

  close(): void {
    this.fail(new Error(`${this.label}: closed`));
  }

  private start(): ChildProcessWithoutNullStreams {
    // Its own process group: stopping it stops every stage, not only the shell.
    const proc = spawn('bash', ['-c', this.stages, 'apertium', '-n', ''], { detached: true });
    this.proc = proc;
    this.buffer = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\0'); end >= 0; end = this.buffer.indexOf('\0')) {
        const out = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        const w = this.waiting.shift();
        if (!w) continue;
        clearTimeout(w.timer);
        w.resolve(out);
      }
      this.busy(this.waiting.length > 0);
    });
    const errors: string[] = [];
    proc.stderr.on('data', (b: Buffer) => errors.push(String(b)));
    proc.on('error', (e) => this.fail(e));
    proc.on('exit', (code, signal) => {
      if (this.proc === proc) this.fail(new Error(`${this.label} stopped (${signal ?? `code ${code}`})${errors.length ? `: ${errors.join('').trim().split('\n')[0]}` : ''}`));
    });
    proc.stdin.on('error', () => {}); // an exit reports it
    return proc;
  }

  /** Fails the texts in flight and drops the pipeline: the next text starts a new one. */
  private fail(err: Error): void {
    const proc = this.proc;
    this.proc = undefined;
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    if (proc?.pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        proc.kill('SIGKILL');
      }
    }
  }

  /** The pipeline keeps the process alive only while a text is in flight (a CLI ends when its work does). */
  private busy(on: boolean): void {
    const p = this.proc;
    if (!p) return;
    for (const h of [p, p.stdin, p.stdout, p.stderr] as { ref(): void; unref(): void }[]) {
      if (on) h.ref();
      else h.unref();
    }
  }
}
