/**
 * The frames of the Python tracebacks pasted into a question, innermost first. Where a program failed is the best
 * single clue to where its bug is: bug localization boosts the files of a report's stack trace, the frames nearest
 * the failure most (Wong et al. 2014, "Boosting bug-report-oriented fault localization with segmentation and
 * stack-trace analysis"; Moreno et al. 2014, Lobster). Pure.
 */

export interface Frame {
  /** As the traceback wrote it: `/usr/lib/python3.8/site-packages/_pytest/assertion/rewrite.py`. */
  path: string;
  line: number;
  /** The function the frame is in (`is_rewrite_disabled`); frames of `<module>`, `<lambda>`… have none. */
  name?: string;
}

/** Python's `File "path", line N, in name` and pytest's `path:N: in name`, after any prefix (`INTERNALERROR>`, `E`). */
const FRAME = /File "([^"\n]+\.py)", line (\d+), in ([^\s<>]\S*|<[^>\n]+>)|(?:^|[\s>])((?:[A-Za-z]:)?[\w./\\~-]*\.py):(\d+): in ([^\s<>]\S*|<[^>\n]+>)/gm;

/**
 * The frames, innermost first: each traceback lists its frames outermost first (`most recent call last`), so the
 * last frame written is where the last error was raised. Each path and function once, where it is innermost.
 */
export function tracebackFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const m of text.matchAll(FRAME)) {
    const [path, line, name] = m[1] !== undefined ? [m[1], m[2]!, m[3]!] : [m[4]!, m[5]!, m[6]!];
    frames.push({ path: path.replace(/\\/g, '/'), line: Number(line), ...(name.startsWith('<') ? {} : { name }) });
  }
  const seen = new Set<string>();
  return frames.reverse().filter((f) => {
    const key = `${f.path}\n${f.name ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * How many trailing path segments a frame's file shares with a file of the sources: 0 when their file names differ,
 * 2 for `site-packages/_pytest/runner.py` and `src/_pytest/runner.py` (a traceback writes the installed copy). Of a
 * function's definitions in files of the frame's name, the one sharing most is the frame's.
 */
export function sharedSuffix(framePath: string, sourcePath: string): number {
  const a = framePath.split('/').filter(Boolean).reverse();
  const b = sourcePath.split('/').filter(Boolean).reverse();
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
