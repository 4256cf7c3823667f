import type { Store } from '../../pipeline/store/store.ts';
import type { Chunk } from '../../pipeline/types.ts';

/**
 * The example questions `npm start` asks, one per route, taken from what the index holds rather than
 * written for one repository (nor copied from an evaluation dataset): a how-to from a docs heading,
 * "where is the bug from #N" for an indexed issue, "what does X do" for a function the code defines.
 */

export interface Example {
  route: 'how-to' | 'issue' | 'symbol';
  language: 'en' | 'es';
  question: string;
}

const TEST_PATH = /(^|\/)(tests?|testing|spec|__tests__|examples?|docs_src)\//i;

/** "How to use fixtures" → "How do I use fixtures?"; other headings are not phrased as tasks. */
export function howToQuestion(heading: string): string | undefined {
  const m = /^how to (.+?)[?.:]?$/i.exec(heading.trim());
  return m && m[1]!.length <= 80 ? `How do I ${m[1]}?` : undefined;
}

/** The shortest "How to …" heading (ties: alphabetical); a generic how-to when the docs have none. */
export function pickHowTo(docs: readonly Chunk[]): string {
  const candidates = new Set<string>();
  for (const c of docs) for (const h of c.citation.headings ?? []) {
    const q = howToQuestion(h);
    if (q) candidates.add(q);
  }
  const best = [...candidates].sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
  return best ?? 'How do I get started?';
}

/**
 * A public top-level function outside tests, the one the docs mention most (ties: the shortest name,
 * then alphabetical): the one a newcomer would most likely ask about.
 */
export function pickSymbol(code: readonly Chunk[], docs: readonly Chunk[]): string | undefined {
  const names = new Set<string>();
  for (const c of code) {
    const s = c.citation.symbol;
    if (!s || TEST_PATH.test(c.citation.path)) continue;
    // Top-level, public, and a name people write in prose: `parse_config`, `parseConfig`.
    if (/^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$|^[a-z]+[A-Z][A-Za-z0-9]*$/.test(s)) names.add(s);
  }
  const text = docs.map((d) => d.text).join('\n');
  const mentions = (name: string) => text.split(name).length - 1;
  const scored = [...names].map((n) => ({ n, m: mentions(n) }));
  scored.sort((a, b) => b.m - a.m || a.n.length - b.n.length || a.n.localeCompare(b.n));
  return scored[0]?.n;
}

/** The lowest issue number in the index. */
export function pickIssue(issues: readonly Chunk[]): number | undefined {
  const numbers = issues.map((c) => c.citation.issue).filter((n): n is number => typeof n === 'number');
  return numbers.length ? Math.min(...numbers) : undefined;
}

export async function pickExamples(store: Store): Promise<Example[]> {
  const all = async (collection: 'docs' | 'code' | 'issues') => store.get(await store.ids(collection));
  const [docs, code, issues] = [await all('docs'), await all('code'), await all('issues')];
  const out: Example[] = [];
  if (docs.length) out.push({ route: 'how-to', language: 'en', question: pickHowTo(docs) });
  const issue = pickIssue(issues);
  if (issue !== undefined) out.push({ route: 'issue', language: 'es', question: `¿Dónde está el bug del issue #${issue}?` });
  const symbol = pickSymbol(code, docs);
  // Spanish when there was no issue to ask about, so both languages are shown.
  if (symbol) out.push(issue === undefined ? { route: 'symbol', language: 'es', question: `¿Qué hace \`${symbol}\`?` } : { route: 'symbol', language: 'en', question: `What does \`${symbol}\` do?` });
  return out;
}
