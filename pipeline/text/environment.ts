/**
 * What a pasted issue says about the reporter's environment rather than the bug: the template's HTML comments
 * (GitHub does not render them; "Thanks for submitting an issue!…"), a `pip list` / `pip freeze` / `conda list`
 * table and pip's install log. Searched with the rest, its hundreds of package names are the rarest terms of the
 * question — BM25 keeps the rarest (`retrieval.bm25.maxTerms`), the dense side reads the first 512 tokens, the
 * router looks names up — and the bug's own words lose their place. Pure.
 */

/** `name version [location | build channel]`, or pip freeze's `name==version`; a version has a dot (`1.3.0`, `2018.5`). */
const PACKAGE_LINE = /^\s*[A-Za-z0-9][\w.[\]-]*(?:\s+|\s*==\s*)v?\d+(?:\.[\w+!-]+)+(?:\s+\S+){0,3}\s*$/;
/** `pip list`'s header and the dashes under it. */
const PACKAGE_HEADER = /^\s*Package\s+Version\b[^\n]*$|^\s*-{3,}(?:\s+-{3,})*\s*$/;
/** A listing is this many package lines in a row; fewer may be a sentence's versions. */
const MIN_PACKAGE_LINES = 3;
/** pip's own log of an install: a line that lists packages by the dozen. */
const INSTALL_LOG = /^\s*(?:Installing collected packages:|Successfully installed |Requirement already satisfied: )/;

export interface WithoutEnvironment {
  text: string;
  /** What was left out, for the route: `an HTML comment`, `79 lines of a package list`… (empty: nothing). */
  left: string[];
}

/**
 * The text without its HTML comments (`<!-- … -->`; an unclosed one is left as written), and how many. A scan, not a
 * lazy regex, which is quadratic over many unclosed `<!--`.
 */
function withoutComments(text: string): { text: string; comments: number } {
  const parts: string[] = [];
  let comments = 0;
  let at = 0;
  for (let open = text.indexOf('<!--'); open >= 0; open = text.indexOf('<!--', at)) {
    const close = text.indexOf('-->', open + 4);
    if (close < 0) break;
    parts.push(text.slice(at, open));
    comments++;
    at = close + 3;
  }
  parts.push(text.slice(at));
  return { text: parts.join(''), comments };
}

const count = (n: number, one: string, many: string) => (n === 1 ? one : `${n} ${many}`);

/** The text with its HTML comments, package listings and pip install log left out, and what was. */
export function withoutEnvironment(text: string): WithoutEnvironment {
  const { text: shown, comments } = withoutComments(text);
  const lines = shown.split('\n');
  const drop = new Set<number>();
  let packages = 0;
  let log = 0;
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && PACKAGE_LINE.test(lines[j]!)) j++;
    if (j - i >= MIN_PACKAGE_LINES) {
      // The header and dashes right above the run belong to it.
      let start = i;
      while (start > 0 && PACKAGE_HEADER.test(lines[start - 1]!) && !drop.has(start - 1)) start--;
      for (let k = start; k < j; k++) drop.add(k);
      packages += j - i;
    }
    i = j > i ? j : i + 1;
  }
  lines.forEach((line, k) => {
    if (!drop.has(k) && INSTALL_LOG.test(line)) {
      drop.add(k);
      log++;
    }
  });
  if (comments === 0 && drop.size === 0) return { text, left: [] };
  const left = [
    ...(comments > 0 ? [count(comments, 'an HTML comment', 'HTML comments')] : []),
    ...(packages > 0 ? [`${count(packages, 'a line', 'lines')} of a package list`] : []),
    ...(log > 0 ? [`${count(log, 'a line', 'lines')} of pip's install log`] : []),
  ];
  return { text: lines.filter((_, k) => !drop.has(k)).join('\n'), left };
}

/**
 * The text a question or an issue is searched with (`retrieval.environment`): without its environment, or as written
 * — also when nothing but its environment was pasted (a package list alone is all there is to search).
 */
export function searchedText(text: string, environment: 'leave-out' | 'keep'): WithoutEnvironment {
  if (environment === 'keep') return { text, left: [] };
  const without = withoutEnvironment(text);
  return /[\p{L}\p{N}]/u.test(without.text) ? without : { text, left: [] };
}
