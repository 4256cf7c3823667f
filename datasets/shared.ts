import fs from 'node:fs';
import { z } from 'zod';
import { UserError } from '../pipeline/errors.ts';

/**
 * Loaders for the evaluation data in ../shared/datasets (see its README). Each record is validated
 * on load; a bad line is reported by file, line number and field.
 */

export const localizationRecord = z.object({
  id: z.string(),
  lang: z.enum(['en', 'es']),
  kind: z.enum(['issue-text', 'issue-ref']),
  question: z.string().min(1),
  issue: z.number().int(),
  gold_files: z.array(z.string()).min(1),
  gold_files_at_tag: z.array(z.string()).min(1),
  gold_symbols: z.record(z.string(), z.array(z.string())).optional(),
});
export type LocalizationRecord = z.infer<typeof localizationRecord>;

export const codeQaRecord = z.object({
  id: z.string(),
  lang: z.enum(['en', 'es']),
  kind: z.literal('code-qa'),
  question: z.string().min(1),
  answer: z.string(),
  gold_files: z.array(z.string()).min(1),
});
export type CodeQaRecord = z.infer<typeof codeQaRecord>;

/** Reads a JSONL file and validates every line against the schema. */
export function loadJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out: T[] = [];
  const errors: string[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      errors.push(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
      return;
    }
    const r = schema.safeParse(value);
    if (r.success) out.push(r.data);
    else errors.push(...r.error.issues.map((iss) => `${file}:${i + 1}: ${iss.path.join('.') || '(record)'}: ${iss.message}`));
  });
  if (errors.length) throw new UserError(`invalid dataset records:\n  ${errors.slice(0, 10).join('\n  ')}`);
  return out;
}
