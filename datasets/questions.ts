import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../pipeline/errors.ts';
import { CODE_FORMATS } from '../pipeline/sources/classify.ts';
import { COLLECTIONS, type Collection } from '../pipeline/types.ts';
import { codeQaRecord, loadJsonl, localizationRecord } from './shared.ts';

/**
 * Evaluation questions in one shape, whatever file they came from. cita's own JSONL format is
 * `evalRecord` (see datasets/README.md); the ../shared/datasets formats are mapped onto it.
 */

export const evalRecord = z
  .object({
    id: z.string().min(1),
    lang: z.enum(['en', 'es']),
    kind: z.string().min(1),
    question: z.string().min(1),
    /** Questions that ask the same thing in different languages share a pair id (paired language-gap tests). */
    pair: z.string().min(1).optional(),
    /** `dev` questions may be looked at while developing; `test` ones are the held-out split. */
    split: z.enum(['dev', 'test']).optional(),
    /** A reference answer: a short verbatim quote of a gold file (cita's datasets) or the benchmark's answer (code-qa). */
    reference: z.string().min(1).optional(),
    gold: z
      .object({
        /** Files (code or docs) an answer should cite; file-level retrieval metrics use them. */
        files: z.array(z.string().min(1)).default([]),
        symbols: z.array(z.string().min(1)).default([]),
        /** Issue numbers an answer should cite. */
        issues: z.array(z.number().int().positive()).default([]),
        /** The collection that should answer: the routing target. */
        source: z.enum(COLLECTIONS as unknown as [Collection, ...Collection[]]),
        /** false: the sources do not hold the answer, and the right answer is to say so (no gold files). */
        answerable: z.boolean().default(true),
      })
      .strict()
      .refine((g) => !g.answerable || g.files.length + g.issues.length > 0, 'gold needs at least one file or issue (or answerable: false)')
      .refine((g) => g.answerable || g.files.length + g.issues.length === 0, 'an unanswerable question has no gold files or issues'),
  })
  .strict();
export type EvalRecord = z.infer<typeof evalRecord>;

export interface EvalQuestion extends EvalRecord {
  dataset: string;
  /** What `reference` is: a verbatim `quote` of a gold file (cita's datasets) or a benchmark's `answer` (code-qa). */
  referenceKind?: 'quote' | 'answer';
}

export type DatasetFormat = 'cita' | 'localization' | 'code-qa';

export interface DatasetSpec {
  name: string;
  path: string;
  format: DatasetFormat;
}

/**
 * How the questions are typed: `as-written` (the file's text), or `unaccented`, as a user without accent
 * keys types them (`unaccentedText`): whether a question is served as well either way (#15).
 */
export type Typing = 'as-written' | 'unaccented';

/** `text` typed without accents: no acute accent or diaeresis on a vowel, no `¿` or `¡` (`ñ` kept: it has its own key). Pure. */
export function unaccentedText(text: string): string {
  return text
    .replace(/[¿¡]/g, '')
    .normalize('NFD')
    .replace(/([aeiouAEIOU])[\u0301\u0308]/g, '$1')
    .normalize('NFC');
}

export interface LoadedDataset {
  name: string;
  /** As configured (relative to the project root when it was). */
  path: string;
  /** Of the file's bytes, and of the typing when the questions are not as written (results cached per dataset never mix the two). */
  sha256: string;
  /** Present when the questions are not as written. */
  typed?: Exclude<Typing, 'as-written'>;
  questions: EvalQuestion[];
}

/** Code files go to `code`, everything else (rst, md, txt) to `docs`. */
export function sourceOfFile(file: string): Collection {
  return path.extname(file).toLowerCase() in CODE_FORMATS ? 'code' : 'docs';
}

/** The collection most gold files live in (code on a tie: the fix is in the code). */
function majoritySource(files: string[]): Collection {
  const docs = files.filter((f) => sourceOfFile(f) === 'docs').length;
  return docs > files.length - docs ? 'docs' : 'code';
}

/**
 * issue-localization: an `issue-ref` question names the issue, so it should be routed to the issue
 * (and from there to the code); an `issue-text` question is the issue itself, to be answered by code.
 */
/** The shared datasets name a question's translation by its id with the other language suffix. */
const pairOf = (id: string): string | undefined => /^(.*)-(?:en|es)$/.exec(id)?.[1];

/**
 * The shared datasets have no split; theirs is given as cita's own are split: by the parity of the
 * first number of the pair id, odd → dev, even → test (`pytest-cqa-007` → 7 → dev,
 * `pytest-5104-issue-text` → 5104 → test), so both languages of a pair land in the same half.
 */
export function splitByNumber(id: string): 'dev' | 'test' {
  const n = /(\d+)/.exec(pairOf(id) ?? id)?.[1];
  return n !== undefined && Number(n) % 2 === 0 ? 'test' : 'dev';
}

function fromLocalization(r: z.infer<typeof localizationRecord>): EvalRecord {
  return {
    id: r.id,
    pair: pairOf(r.id),
    split: splitByNumber(r.id),
    lang: r.lang,
    kind: r.kind,
    question: r.question,
    gold: {
      files: r.gold_files_at_tag,
      symbols: Object.values(r.gold_symbols ?? {}).flat(),
      issues: r.kind === 'issue-ref' ? [r.issue] : [],
      source: r.kind === 'issue-ref' ? 'issues' : 'code',
      answerable: true,
    },
  };
}

/** The benchmark's answer as the reference, without the stray `</start_of_answer>` some records end with. */
function fromCodeQa(r: z.infer<typeof codeQaRecord>): EvalRecord {
  const reference = r.answer.replace(/<\/start_of_answer>\s*$/, '').trim();
  return {
    id: r.id,
    pair: pairOf(r.id),
    split: splitByNumber(r.id),
    lang: r.lang,
    kind: r.kind,
    question: r.question,
    ...(reference ? { reference } : {}),
    gold: { files: r.gold_files, symbols: [], issues: [], source: majoritySource(r.gold_files), answerable: true },
  };
}

/** Loads and validates one dataset; errors name the file, the line and the field. */
export function loadDataset(spec: DatasetSpec, root: string, typing: Typing = 'as-written'): LoadedDataset {
  const file = path.resolve(root, spec.path);
  if (!fs.existsSync(file)) throw new UserError(`dataset ${spec.name}: ${file} does not exist`);
  const bytes = fs.readFileSync(file);
  let records: EvalRecord[];
  switch (spec.format) {
    case 'cita':
      records = loadJsonl(file, evalRecord);
      break;
    case 'localization':
      records = loadJsonl(file, localizationRecord).map(fromLocalization);
      break;
    case 'code-qa':
      records = loadJsonl(file, codeQaRecord).map(fromCodeQa);
      break;
  }
  if (records.length === 0) throw new UserError(`dataset ${spec.name}: ${file} holds no records`);
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.id)) throw new UserError(`dataset ${spec.name}: ${file}: id "${r.id}" appears twice`);
    seen.add(r.id);
  }
  const hash = crypto.createHash('sha256').update(bytes);
  if (typing !== 'as-written') hash.update(`\0typed:${typing}`);
  const typed = (r: EvalRecord) => (typing === 'unaccented' ? { ...r, question: unaccentedText(r.question) } : r);
  return {
    name: spec.name,
    path: spec.path,
    sha256: hash.digest('hex'),
    ...(typing !== 'as-written' ? { typed: typing } : {}),
    questions: records.map((r) => ({ ...typed(r), dataset: spec.name, ...(r.reference ? { referenceKind: spec.format === 'cita' ? ('quote' as const) : ('answer' as const) } : {}) })),
  };
}

/** Every configured dataset; question ids must be unique across them (A/B pairs questions by id). */
export function loadDatasets(specs: DatasetSpec[], root: string, typing: Typing = 'as-written'): LoadedDataset[] {
  if (specs.length === 0) throw new UserError('no evaluation datasets: add eval.datasets to the instance config (see datasets/README.md)');
  const sets = specs.map((s) => loadDataset(s, root, typing));
  const owner = new Map<string, string>();
  for (const d of sets)
    for (const q of d.questions) {
      const other = owner.get(q.id);
      if (other) throw new UserError(`question id "${q.id}" is in both ${other} and ${d.name}`);
      owner.set(q.id, d.name);
    }
  return sets;
}
