import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApertiumPipe, isBilingualLookup, partStages, type PipePart } from './apertiumPipe.ts';
import { selectAlternatives, type SelectionChoices } from './lexicalSelection.ts';

/**
 * Query translation into the corpus language (DESIGN lesson 6: a natural Spanish question shares no
 * word with English docs, so BM25 has nothing to match). Offline machine translation with Apertium
 * (Debian packages `apertium` + `apertium-en-es`); code is never translated: identifiers, paths,
 * options, backtick spans, code blocks and tracebacks pass through untouched as Apertium
 * "superblanks", so `pytest.mark.skip` does not come back as `*pytest.*mark.*skip`.
 */

export type Language = 'en' | 'es';

export interface Translator {
  /** e.g. `apertium:spa-eng`. */
  readonly id: string;
  /**
   * `keep`: words held out of the translation as written (a project's own name: `Black`, not `Negro`); `choices`:
   * which of its dictionary's translations a word takes (./lexicalSelection.ts), where the translator has one.
   */
  translate(text: string, from: Language, to: Language, keep?: readonly string[], choices?: SelectionChoices): Promise<string>;
  /** The bilingual dictionary's output for each source analysis (`file<n><sg>`): a unit `^file<n><sg>/lima<n><f><sg>/…$` each. */
  lookup?(analyses: readonly string[], from: Language, to: Language): Promise<string>;
  /**
   * Every translation the bilingual dictionary gives for each word of the prose (`salida` → start,
   * exit, output, departure), before a translation picks one: query expansion for word matching.
   */
  alternatives?(text: string, from: Language, to: Language): Promise<string[]>;
  /**
   * The source language's morphological analyses of each word (`lanzo` → `lanzar<vblex><pri><p1><sg>`),
   * none for a word the analyser does not know: what restoring a question's accents reads (./accents.ts).
   */
  analyse?(words: readonly string[], from: Language, to: Language): Promise<Map<string, string[]>>;
}

/** Apertium's morphological analysis (`lt-proc` output, one word per line): word → its analyses, none when unknown (`*foo`). Pure. */
export function parseAnalyses(output: string): Map<string, string[]> {
  const analyses = new Map<string, string[]>();
  for (const m of output.matchAll(/\^((?:\\.|[^$\\])*)\$/g)) {
    const [surface, ...readings] = m[1]!.split('/');
    const word = surface!.replace(/\\(.)/g, '$1');
    analyses.set(word, readings.filter((r) => !r.startsWith('*')));
  }
  return analyses;
}

/**
 * The target side of Apertium's bilingual lookup (`lt-proc -b` output): per lexical unit
 * `^salida<n><f><sg>/start<n><sg>/exit<n><sg>$`, the alternatives with tags and multiword marks
 * (`jump# over`) removed; unknown words (`*foo`) have none. Pure.
 */
export function parseBilingual(output: string): string[][] {
  const units: string[][] = [];
  for (const m of output.matchAll(/\^((?:\\.|[^$\\])*)\$/g)) {
    const [, ...targets] = m[1]!.split('/');
    units.push(
      targets
        .filter((t) => t !== '' && !t.startsWith('*') && !t.startsWith('@') && !t.startsWith('#'))
        .map((t) => t.replace(/<[^>]*>/g, '').replace(/#/g, '').replace(/\\(.)/g, '$1').trim())
        .filter((t) => /\p{L}/u.test(t)),
    );
  }
  return units;
}

const choiceIds = new WeakMap<SelectionChoices, string>();

/** A short id of a set of choices, for the translation cache's key (made once per set). */
function choicesId(choices: SelectionChoices): string {
  let id = choiceIds.get(choices);
  if (id === undefined) {
    id = crypto.createHash('sha256').update(JSON.stringify(Object.entries(choices).sort())).digest('hex').slice(0, 16);
    choiceIds.set(choices, id);
  }
  return id;
}

/** Apertium's mode for a language pair (ISO 639-3 codes). */
const APERTIUM_CODES: Record<Language, string> = { en: 'eng', es: 'spa' };

/** Characters Apertium's stream format reserves; in prose they are escaped with a backslash. */
const RESERVED = /[\\[\]^$/<>@{}*]/g;

/** Whole-text spans that are code: fenced blocks, and lines that are code or output rather than prose. */
const CODE_BLOCK = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g;
const CODE_LINE = /^(?:[ \t]{4,}|\t|>>> |\.\.\. |\$ |E {2,}|Traceback \(most recent call last\)|\s*File ")/;
/**
 * A backtick span (RST's double-backtick literal first: read as single backticks, ``a`` prose ``b``
 * would hold out ` prose ` too) or a URL: one piece whatever it holds.
 */
const INLINE_CODE = /^(?:``[^`\n]+``|`[^`\n]+`|https?:\/\/\S+)$/;
/** Sentence punctuation around a word, not part of it. */
const LEADING = /^[¿¡("'“«]+/;
const TRAILING = /[.,;:!?)"'”»]+$/;
/** A word is code when it holds code punctuation inside, or is camelCase / an option / an issue ref. */
const CODE_WORD = /[_./\\@#$^<>{}[\]=()`*|~+:]|^--?\w|\p{Ll}\p{Lu}|^\d/u;

/**
 * Marks the number inside a superblank: a private-use character, so no text a user writes (a
 * literal `[§3§]` included) can pass for a placeholder.
 */
const MARK = '\uE000';
const PLACEHOLDER = new RegExp(`^\\[${MARK}\\d+${MARK}\\]$`);

export interface ProtectedText {
  /** Apertium stream: prose escaped, every code span replaced by the superblank `[<U+E000>n<U+E000>]`. */
  stream: string;
  spans: string[];
}

/** Replaces code in `text` (and the words of `keep`, as written) by numbered superblanks so that only prose is translated. Pure. */
export function protectCode(text: string, keep: ReadonlySet<string> = new Set()): ProtectedText {
  const spans: string[] = [];
  const hold = (s: string) => `[${MARK}${spans.push(s) - 1}${MARK}]`;
  // Line structure first: fenced blocks, then code-looking lines; then words within prose lines.
  const blocks = text.replace(CODE_BLOCK, (m) => hold(m));
  const lines = blocks.split('\n').map((line) => {
    if (PLACEHOLDER.test(line.trim())) return line;
    if (CODE_LINE.test(line)) return hold(line);
    return line
      .split(new RegExp(`(\\[${MARK}\\d+${MARK}\\]|\`\`[^\`\\n]+\`\`|\`[^\`\\n]+\`|\\bhttps?://\\S+|\\s+)`))
      .map((piece) => {
        if (piece === '' || /^\s+$/.test(piece) || PLACEHOLDER.test(piece)) return piece;
        if (INLINE_CODE.test(piece)) return hold(piece);
        const lead = LEADING.exec(piece)?.[0] ?? '';
        const rest = piece.slice(lead.length);
        let trail = TRAILING.exec(rest)?.[0] ?? '';
        // `f()` keeps its closing parenthesis: it belongs to the word when the word opened one.
        const opened = (t: string) => t.split('(').length - t.split(')').length;
        while (trail.startsWith(')') && opened(rest.slice(0, rest.length - trail.length)) > 0) trail = trail.slice(1);
        const core = rest.slice(0, rest.length - trail.length);
        if (core !== '' && (CODE_WORD.test(core) || keep.has(core))) return `${escape(lead)}${hold(core)}${escape(trail)}`;
        return escape(piece);
      })
      .join('');
  });
  return { stream: lines.join('\n'), spans };
}

function escape(prose: string): string {
  return prose.replace(RESERVED, (c) => `\\${c}`);
}

/** Apertium's output with the superblanks put back and the escapes removed. Pure. */
export function restoreCode(output: string, spans: readonly string[]): string {
  return output
    .split(new RegExp(`(\\[${MARK}\\d+${MARK}\\])`))
    .map((piece) => {
      const held = new RegExp(`^\\[${MARK}(\\d+)${MARK}\\]$`).exec(piece);
      if (held) return spans[Number(held[1])] ?? '';
      // U+FFFF: Apertium's end-of-stream mark in `-f none` output.
      return piece.replace(/\uFFFF/g, '').replace(/\\(.)/g, '$1').replace(/\[|\]/g, '');
    })
    .join('');
}

export interface ApertiumOptions {
  /** The executable; default `apertium` on the PATH. */
  command?: string;
  /** Where Apertium's `<pair>.mode` files are (their first stages give the bilingual lookup). */
  modesDir?: string;
  timeoutMs?: number;
  /** Translations kept in memory (a server asks the same questions again). */
  cacheSize?: number;
}

/** Words whose analyses are kept in memory. */
const ANALYSES_KEPT = 20_000;

/** Failures of the running pipeline after which texts are translated by one `apertium` each. */
const PIPE_FAILURES = 3;

/**
 * Apertium in child processes: a running pipeline (apertiumPipe.ts, a few ms per text) where the
 * installation gives one, else one `apertium` per text (~0.2 s); a fault in either fails one
 * translation (retried the one-shot way), not the process.
 */
export class ApertiumTranslator implements Translator {
  readonly id = 'apertium';
  private readonly command: string;
  private readonly timeoutMs: number;
  private readonly cacheSize: number;
  private readonly cache = new Map<string, string>();
  /** Morphological analyses by mode and word (a question's candidate spellings: a few dozen words each). */
  private readonly analyses = new Map<string, string[]>();
  private readonly modesDir: string;
  /** Running pipelines by part, then mode. */
  private readonly parts = new Map<PipePart, Map<string, Promise<ApertiumPipe | undefined>>>();
  private readonly pipeFailures: Record<PipePart, number> = { translation: 0, analyser: 0, lookup: 0, generation: 0 };

  constructor(options: ApertiumOptions = {}) {
    this.command = options.command ?? 'apertium';
    this.modesDir = options.modesDir ?? '/usr/share/apertium/modes';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.cacheSize = options.cacheSize ?? 500;
  }

  async translate(text: string, from: Language, to: Language, keep: readonly string[] = [], choices?: SelectionChoices): Promise<string> {
    if (from === to || text.trim() === '') return text;
    const mode = `${APERTIUM_CODES[from]}-${APERTIUM_CODES[to]}`;
    const chosen = choices !== undefined && Object.keys(choices).length > 0 ? choices : undefined;
    const key = `${mode}\u0000${keep.join('\u0001')}\u0000${chosen ? choicesId(chosen) : ''}\u0000${text}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      // Most recently used last, so the oldest is evicted first.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const { stream, spans } = protectCode(text.normalize('NFC'), new Set(keep));
    const out = restoreCode(await (chosen ? this.runChoosing(mode, stream, chosen) : this.run(mode, stream)), spans).trim();
    this.cache.set(key, out);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return out;
  }

  async alternatives(text: string, from: Language, to: Language): Promise<string[]> {
    if (from === to || text.trim() === '') return [];
    const mode = `${APERTIUM_CODES[from]}-${APERTIUM_CODES[to]}`;
    const { stream } = protectCode(text.normalize('NFC'));
    const stages = await this.bilingualStages(mode);
    // The file is the shell's $0, read into the first stage (not a string spliced into the command).
    const out = await this.withInput(stream, (file) => this.spawnProcess('sh', ['-c', `cat "$0" | ${stages}`, file], `apertium ${mode} (bilingual lookup)`));
    return [...new Set(parseBilingual(out).flat().map((t) => t.toLowerCase()))];
  }

  async analyse(words: readonly string[], from: Language, to: Language): Promise<Map<string, string[]>> {
    const mode = `${APERTIUM_CODES[from]}-${APERTIUM_CODES[to]}`;
    const plain = [...new Set(words.filter((w) => /^[\p{L}]+$/u.test(w)))];
    const missing = plain.filter((w) => !this.analyses.has(`${mode}\u0000${w}`));
    if (missing.length > 0) {
      // One word per line, so none joins another into a multiword.
      const parsed = parseAnalyses(await this.analysis(mode, `${missing.join('\n')}\n`));
      for (const w of missing) {
        this.analyses.set(`${mode}\u0000${w}`, parsed.get(w) ?? []);
        if (this.analyses.size > ANALYSES_KEPT) this.analyses.delete(this.analyses.keys().next().value!);
      }
    }
    return new Map(plain.map((w) => [w, this.analyses.get(`${mode}\u0000${w}`)!]));
  }

  /** The mode's first stage (the source language's analyser) over `input`: by a running analyser, else one per call. */
  private analysis(mode: string, input: string): Promise<string> {
    return this.throughPipe(mode, 'analyser', input, async () => {
      const analyser = (await this.modeStages(mode))[0]!.replace(/\$\d/g, '');
      return this.withInput(input, (file) => this.spawnProcess('sh', ['-c', `cat "$0" | ${analyser}`, file], `apertium ${mode} (analysis)`));
    });
  }

  /** The stages of a mode up to its bilingual lookup (`lt-proc -b …autobil.bin`), from its `.mode` file. */
  private async bilingualStages(mode: string): Promise<string> {
    const stages = partStages((await this.modeStages(mode)).join(' | '), 'lookup');
    if (!stages) throw new Error(`${path.join(this.modesDir, `${mode}.mode`)}: no bilingual lookup stage (lt-proc -b) in the mode`);
    return stages.replace(/\$\d/g, '');
  }

  /** The stages of a mode's pipeline, from its `.mode` file. */
  private async modeStages(mode: string): Promise<string[]> {
    const file = path.join(this.modesDir, `${mode}.mode`);
    try {
      return (await fs.promises.readFile(file, 'utf8')).trim().split(/\s*\|\s*/);
    } catch {
      throw new Error(`${file} not found: install the Debian packages apertium and apertium-en-es, or set languages.translator.kind: none`);
    }
  }

  /** The translation cut after its bilingual lookup, each word's translation chosen by `choices` in between. */
  private async runChoosing(mode: string, input: string, choices: SelectionChoices): Promise<string> {
    const looked = await this.throughPipe(mode, 'lookup', input, async () => {
      const stages = await this.bilingualStages(mode);
      return this.withInput(input, (file) => this.spawnProcess('sh', ['-c', `cat "$0" | ${stages}`, file], `apertium ${mode} (lookup)`));
    });
    const selected = selectAlternatives(looked, choices);
    return this.throughPipe(mode, 'generation', selected, async () => {
      // $1 is the generator's option: -n, unknown words without the `*` mark (the script's -u).
      const stages = partStages((await this.modeStages(mode)).join(' | '), 'generation').replace(/\$2/g, '');
      if (!stages) throw new Error(`apertium ${mode}: no stages after the bilingual lookup in the mode`);
      return this.withInput(selected, (file) => this.spawnProcess('sh', ['-c', `cat "$0" | ${stages}`, file, '-n'], `apertium ${mode} (generation)`));
    });
  }

  async lookup(analyses: readonly string[], from: Language, to: Language): Promise<string> {
    const mode = `${APERTIUM_CODES[from]}-${APERTIUM_CODES[to]}`;
    const bidix = (await this.bilingualStages(mode)).split(' | ').find(isBilingualLookup)!;
    const input = analyses.map((a) => `^${a}$`).join('\n');
    return this.withInput(`${input}\n`, (file) => this.spawnProcess('sh', ['-c', `cat "$0" | ${bidix}`, file], `apertium ${mode} (bilingual lookup)`));
  }

  private run(mode: string, input: string): Promise<string> {
    // -u: unknown words without the `*` mark; -f none: the input is already Apertium's stream format.
    return this.throughPipe(mode, 'translation', input, () =>
      this.withInput(input, (file) => this.spawnProcess(this.command, ['-u', '-f', 'none', mode, file], `apertium ${mode}`)),
    );
  }

  /**
   * `input` through the running pipeline of `mode` (its translation, or its analyser alone), or `oneShot`
   * where there is none or it failed; after a few failures of one part its pipelines are given up.
   */
  private async throughPipe(mode: string, part: PipePart, input: string, oneShot: () => Promise<string>): Promise<string> {
    const pipe = await this.pipeFor(mode, part);
    if (pipe) {
      try {
        return await pipe.translate(input);
      } catch {
        if (++this.pipeFailures[part] >= PIPE_FAILURES) this.pipesOf(part).set(mode, Promise.resolve(undefined));
      }
    }
    return oneShot();
  }

  private pipesOf(part: PipePart): Map<string, Promise<ApertiumPipe | undefined>> {
    let pipes = this.parts.get(part);
    if (!pipes) this.parts.set(part, (pipes = new Map()));
    return pipes;
  }

  /** A running pipeline for `mode` (the default command only: another is run as configured, per text). */
  private pipeFor(mode: string, part: PipePart): Promise<ApertiumPipe | undefined> {
    if (this.command !== 'apertium') return Promise.resolve(undefined);
    const pipes = this.pipesOf(part);
    let pipe = pipes.get(mode);
    if (!pipe) pipes.set(mode, (pipe = ApertiumPipe.open(this.modesDir, mode, this.timeoutMs, part)));
    return pipe;
  }

  /** Stops the running pipelines (a process that translates no more; they never keep one alive when idle). */
  async close(): Promise<void> {
    for (const pipes of this.parts.values()) for (const pipe of pipes.values()) (await pipe)?.close();
    this.parts.clear();
  }

  /** The input goes through a file: the apertium script reads `/dev/stdin`, which fails on the socket Node gives a child (ENXIO). */
  private async withInput(input: string, use: (file: string) => Promise<string>): Promise<string> {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'cita-apertium-'));
    const file = path.join(dir, 'in.txt');
    try {
      await fs.promises.writeFile(file, input);
      return await use(file);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  private spawnProcess(command: string, args: string[], label: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${label}: no answer in ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          e.code === 'ENOENT'
            ? new Error(`${command} not found: install the Debian packages apertium and apertium-en-es (npm run setup does, as root), or set languages.translator.kind: none`)
            : e,
        );
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        const stderr = Buffer.concat(err).toString('utf8').trim();
        if (code !== 0) reject(new Error(`${label} exited with ${code}${stderr ? `: ${stderr.split('\n')[0]}` : ''}`));
        else resolve(Buffer.concat(out).toString('utf8'));
      });
    });
  }
}

export interface TranslatorConfig {
  kind: 'apertium' | 'none';
  command: string;
  timeoutMs: number;
}

const shared = new Map<string, Translator>();

/**
 * The translator a config names, one per configuration for the process (its cache is then shared
 * by every question); undefined for `none`.
 */
export function translatorFor(config: TranslatorConfig): Translator | undefined {
  if (config.kind === 'none') return undefined;
  const key = JSON.stringify(config);
  let t = shared.get(key);
  if (!t) {
    t = new ApertiumTranslator({ command: config.command, timeoutMs: config.timeoutMs });
    shared.set(key, t);
  }
  return t;
}
