import type { Store } from '../store/store.ts';
import type { NameMentions } from './learnedRoute.ts';

/** The most names counted: a typed question rarely gives more, and one that does is read by its first. */
export const COUNTED_NAMES = 20;

/**
 * How many chunks of the docs and of the code mention each name the question asks about (the first
 * `COUNTED_NAMES`), beside how many chunks each holds: the learned route's `names:documented`
 * evidence. Two `Store.matchCounts` requests; undefined, and no request, when it names nothing.
 */
export async function nameMentions(store: Pick<Store, 'matchCounts'>, names: readonly string[], chunks: NameMentions['chunks']): Promise<NameMentions | undefined> {
  const counted = [...new Set(names)].slice(0, COUNTED_NAMES);
  if (counted.length === 0) return undefined;
  const sets = counted.map((name) => [name]);
  const [docs, code] = await Promise.all([store.matchCounts('docs', sets), store.matchCounts('code', sets)]);
  return { chunks, names: counted.map((name, i) => ({ name, docs: docs[i] ?? 0, code: code[i] ?? 0 })) };
}

/** The route's line for them: `names asked about, chunks that mention each in the docs (of 1444) / the code (of 2472): pytest.raises 48 / 81`. */
export function mentionsNote(m: NameMentions): string {
  const shown = m.names.slice(0, 5).map((n) => `${n.name} ${n.docs} / ${n.code}`);
  const more = m.names.length > 5 ? `, and ${m.names.length - 5} more` : '';
  return `names asked about, chunks that mention each in the docs (of ${m.chunks.docs}) / the code (of ${m.chunks.code}): ${shown.join(', ')}${more}`;
}
