/**
 * A URL clients may turn into a link: http(s) only, else none. URLs come from the indexed data (an
 * issues export is anyone's JSON): a `javascript:` one would run in the page that shows it.
 */
export function linkable(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
