/**
 * A line of code and the comment after it (`pytest --showlocals     # show local variables in tracebacks`,
 * `$ git tag  # shows the tagged versions`): the code, then `#` or `//` after a space, then the comment. A line that is
 * a comment alone, or a doctest's or shell's prompt before one (`>>> # …`), is not one: such a comment says what
 * follows. The extractive generator quotes such lines (`answer.generator.commentedLines`), and a quote's gloss
 * translates the comment alone.
 */
const COMMENTED_LINE = /^((?:\$\s+)?(?!#|\/\/|>>>|\.\.\.)(\S.*?))\s+(#|\/\/)\s+(.+?)\s*$/;

export interface CommentedLine {
  /** The line up to its comment, a shell's prompt included (`$ pytest -l`). */
  command: string;
  /** The code, a shell's prompt left out (`pytest -l`). */
  code: string;
  /** The comment's marker (`#`, `//`). */
  marker: string;
  /** What the comment says (`show local variables (shortcut)`). */
  comment: string;
}

/** The line's code and comment, or undefined when it is not code with a comment after it. Pure. */
export function commentedLine(line: string): CommentedLine | undefined {
  const m = COMMENTED_LINE.exec(line.trim());
  return m ? { command: m[1]!, code: m[2]!, marker: m[3]!, comment: m[4]! } : undefined;
}
