/**
 * Code-aware tokens for full-text search, shared by every Store implementation.
 *
 * The SQLite store indexes text with FTS5 `unicode61 remove_diacritics 2 tokenchars '_'`, so
 * `parse_config` is one token and `loadConfig` is `loadconfig`. These functions add the parts that a
 * person would type (`parse`, `config`, `load`) beside the whole identifier, and turn free user text
 * into a MATCH expression that can never be a syntax error.
 */

/** A run of identifier characters; dots join the parts of a path (`os.path.join`). */
const IDENTIFIER_RUN = /[\p{L}\p{M}\p{N}_.]+/gu;

/**
 * Parts of one identifier segment, in order: `HTTPServer` → `HTTP`, `Server`; `sha256` → `sha`, `256`.
 * An upper-case run followed by a lower-case letter gives its last capital to the next word.
 */
const WORD_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{N}+|[\p{Lt}\p{Lm}\p{Lo}]+/gu;

const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** A word with at most an initial capital (`the`, `Config`): one part, itself. Checked first because it is most text. */
const PLAIN_WORD = /^\p{Lu}?[\p{Ll}\p{M}]*$/u;

/** Lower-cased parts of one segment (no dots): `parse_config` → `['parse', 'config']`. */
export function identifierParts(segment: string): string[] {
  if (PLAIN_WORD.test(segment)) return segment === '' ? [] : [segment.toLowerCase()];
  const parts: string[] = [];
  // exec with lastIndex rather than matchAll, which clones the regex on every call (hot loop when indexing).
  WORD_PART.lastIndex = 0;
  for (let m = WORD_PART.exec(segment); m !== null; m = WORD_PART.exec(segment)) parts.push(m[0].toLowerCase());
  return parts;
}

/**
 * Calls `emit` with each identifier path of the text (`os.path.join`, `parse_config`, `word`), in order.
 * One native `match`, not an `exec` loop: this runs over every chunk at indexing time.
 */
function forEachIdentifierPath(text: string, emit: (path: string) => void): void {
  for (const raw of text.normalize('NFC').match(IDENTIFIER_RUN) ?? []) {
    // Dots at the ends are sentence punctuation (`end.`, `...`), not part of a path.
    let start = 0;
    let end = raw.length;
    while (start < end && raw.charCodeAt(start) === 46) start++;
    while (end > start && raw.charCodeAt(end - 1) === 46) end--;
    if (start < end) emit(start === 0 && end === raw.length ? raw : raw.slice(start, end));
  }
}

/** Whole identifiers and their parts, lower-cased, in order of appearance (with repeats). */
function identifierTokens(text: string, emit: (token: string) => void): void {
  forEachIdentifierPath(text, (path) => {
    // Most of any text: a plain word is already a token of the text and adds nothing.
    if (PLAIN_WORD.test(path)) return;
    const segments = path.split('.');
    for (const segment of segments) {
      if (!HAS_LETTER_OR_DIGIT.test(segment)) continue;
      const whole = segment.toLowerCase();
      const parts = identifierParts(segment);
      const compound = parts.length !== 1 || parts[0] !== whole;
      if (!compound && segments.length === 1) continue;
      emit(whole);
      if (compound) for (const p of parts) emit(p);
    }
  });
}

/**
 * Extra tokens for the text, space-separated: for every compound identifier the whole identifier
 * (lower-cased) and its parts, for every dotted path its segments. Plain words give nothing.
 * `parse_config` → `parse_config parse config`; `HTTPServer` → `httpserver http server`.
 * Each token appears once: a chunk that names `parse_config` twenty times should not outrank one
 * that defines it on the strength of repetition in this column.
 */
export function expandIdentifiers(text: string): string {
  const seen = new Set<string>();
  identifierTokens(text, (t) => seen.add(t));
  return [...seen].join(' ');
}

/**
 * The terms of free user text, each once, in order: every word and identifier (whole, then its
 * parts). A dotted path stays one term (`os.path.join`, a phrase to FTS5) so an exact mention ranks first.
 */
export function ftsTerms(query: string): string[] {
  const terms = new Set<string>();
  forEachIdentifierPath(query, (path) => {
    if (!HAS_LETTER_OR_DIGIT.test(path)) return;
    terms.add(path.toLowerCase());
    identifierTokens(path, (t) => terms.add(t));
  });
  return [...terms];
}

/**
 * A safe FTS5 MATCH expression for free user text: the OR of `ftsTerms`, each in double quotes so
 * that operators (`AND`, `NEAR`, `-`, `:`, `*`, `^`) and stray punctuation are plain text. `""` when
 * nothing is searchable; callers then return no hits.
 */
export function ftsQuery(query: string): string {
  return ftsMatch(ftsTerms(query));
}

/** The FTS5 MATCH expression for terms: their OR (or AND), each in double quotes (`""` when there are none). */
export function ftsMatch(terms: string[], operator: 'OR' | 'AND' = 'OR'): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(` ${operator} `);
}
