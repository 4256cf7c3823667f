import type { AskResult } from '../../pipeline/answer/ask.ts';
import type { Language } from '../../pipeline/text/translate.ts';
import { COLLECTIONS } from '../../pipeline/types.ts';

/** Over the glosses: what they are (a machine translation of the quotes, not what the sources say), in the answer's language. */
const GLOSSES_HEADING: Record<Language, (by: string) => string> = {
  en: (by) => `Machine translation of the quotes (${by}; a reading aid, not a quote):`,
  es: (by) => `Traducción automática de las citas (${by}; para orientarse, no es una cita):`,
};

/** `cita ask` for a terminal: the answer, its numbered sources, then how it was found. */
export function formatAsk(r: AskResult): string {
  const out: string[] = [];
  const a = r.answer;
  if (a) {
    out.push(a.text.trim(), '');
    if (a.glosses?.length) {
      out.push(GLOSSES_HEADING[a.language](a.glossedBy ?? 'translator'));
      for (const g of a.glosses) out.push(`  [${g.marker}] ${g.text}`);
      out.push('');
    }
    if (a.citations.length) {
      out.push('Sources:');
      for (const c of a.citations) {
        const where = c.issue !== undefined ? `#${c.issue}${c.commentId ? ` comment ${c.commentId}` : ''}` : `${c.path}:${c.startLine}-${c.endLine}`;
        const label = c.symbol ?? c.headings?.join(' > ') ?? '';
        out.push(`  [${c.marker}] ${where}${label ? `  ${label}` : ''}${c.url ? `\n      ${c.url}` : ''}`);
      }
    }
    for (const i of a.invalid) out.push(`  (dropped marker [${i.marker}]: ${i.problem})`);
    if (a.unsupported.length) out.push('', `Unsupported (no valid citation): ${a.unsupported.length} sentence(s)`);
    out.push('');
  }
  const weights = COLLECTIONS.map((c) => `${c} ${r.route.weights[c].toFixed(2)}`).join(', ');
  out.push(`Route: ${r.route.top} (${weights}); language ${r.route.language}`);
  for (const reason of r.route.reasons) out.push(`  - ${reason}`);
  const slots = COLLECTIONS.map((c) => `${c} ${r.fusion.slots[c] ?? 0}`).join(', ');
  out.push(`Slots (${r.fusion.method}): ${slots}`);
  out.push(`Context: ${r.context.blocks.length} blocks, ${r.context.chars} characters`);
  const t = Object.entries(r.timings)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(', ');
  out.push(`Timings: ${t}`, '');
  return out.join('\n');
}
