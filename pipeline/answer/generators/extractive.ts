import { issueUnits, isTraceback } from '../../chunking/issueChunker.ts';
import { DIRECTIVE, indentOf, splitProse, splitUnits, type TextUnit } from '../../chunking/sentences.ts';
import { issueRefs, pastedReason, route, withoutIssueRefs } from '../../retrieval/router.ts';
import { contentTerms, foldWord } from '../../text/analysis.ts';
import type { Embedder } from '../../types.ts';
import { cosine, meanVector } from '../../vectors.ts';
import { expectedAnswerType, givesAnswerType, type AnswerType } from '../answerType.ts';
import { commentedLine } from '../commentedLine.ts';
import { normaliseText, splitBlockText } from '../context.ts';
import type { Context, ContextBlock, GeneratedAnswer, Generator, Language } from '../types.ts';

/**
 * The default generator: offline and deterministic. It answers with the context's most relevant
 * sentences, each quoted verbatim (whitespace aside) and followed by its block's marker, so every
 * sentence can be checked against the cited lines.
 *
 * Relevance is by meaning when the generator has the embedder (the multilingual model scores each
 * candidate sentence against the question, so a Spanish question finds an English sentence), plus a
 * little of the lexical signal: the share of the question's content words (of its translation into
 * the corpus language, when there is one) a sentence contains, rarer words weighing more. Without
 * the embedder relevance is lexical only. When nothing clears the threshold it says the sources
 * hold no answer.
 *
 * The answer's shape follows the question: a "where" question (or a pasted issue) over code gets
 * the files and symbols to look at, each with the line that makes it relevant; a question about a
 * referenced issue gets the issue's own sentences and then the code; everything else gets quotes,
 * and a how-to answer the command or code line that follows its best quote.
 */

export interface ExtractiveOptions {
  /** Most sentences quoted; default 5. */
  maxSentences?: number;
  /** Most characters of quoted text; default 700. */
  maxChars?: number;
  /** `spread: blocks`: blocks to quote from when enough sentences qualify; default 2. */
  minBlocks?: number;
  /** Least share (0–1, by weight) of the question's content words a sentence must hold (lexical mode); default 0.34. */
  minCoverage?: number;

  /** By meaning: least relevance (cosine of question and sentence, plus lexicalWeight × coverage) a quote needs. */
  minRelevance?: number;
  /**
   * By meaning, a question in another language than the sources: `minRelevance` less this much.
   * Cross-lingual cosines run lower than same-language ones, so one threshold is stricter for them.
   */
  crossLingualDiscount?: number;
  /** By meaning: weight of the lexical coverage beside the cosine. */
  lexicalWeight?: number;
  /** By meaning: a quote must be within this much of the best quote's relevance. */
  margin?: number;
  /** By meaning: sentences of this many top blocks are scored (bounds the model's work per answer). */
  semanticBlocks?: number;
  /** By meaning, a translated question: compare sentences with the `translation` or with `both` (mean vector). */
  meaningQuery?: 'translation' | 'both';
  /**
   * `pages` (default): each next quote from a page (file) not quoted yet while one qualifies, then the
   * rest by score; `blocks`: the best quote, then the best of another block (up to `minBlocks`), then the rest.
   */
  spread?: 'blocks' | 'pages';
  /** `spread: pages`: quotes from at most this many pages are taken first, then the rest by score; default 4. */
  spreadPages?: number;
  /** Added to the score of a quote of the top-ranked block, less further down (1/n of it in the last of n blocks): ranking breaks near-ties. */
  rankBonus?: number;
  /** Most files a "where" answer lists. */
  whereFiles?: number;
  /**
   * `abstain`: a question naming something no block mentions (`Hypothesis`, `GitLab`) gets no answer,
   * saying so; `abstain-unquoted`: also when none of the blocks its quotes come from does.
   */
  unknownNames?: 'abstain' | 'abstain-unquoted' | 'ignore';
  /** `skip`: a sentence that asks (`asks`) is never quoted as an answer; `quote`: it may be. */
  questionSentences?: 'skip' | 'quote';
  /** `check`: a question that asks for a date or a price (`expectedAnswerType`) gets no answer when no quote gives one; `ignore`: never checked. */
  answerTypes?: 'check' | 'ignore';
  /**
   * reStructuredText's indented prose — the bodies of `.. warning::`, `.. confval::`, `.. attribute::`, definition
   * lists and block quotes — is quotable (`prose`) or read as code (`code`), as Markdown's indented code blocks are.
   */
  rstBodies?: 'prose' | 'code';
  /** An inline literal (``--lf``, `app.config`) counts as a word of a sentence (`words`) or against its being prose (`code`). */
  literals?: 'words' | 'code';
  /**
   * The code line a how-to answer shows after its best quote: `named`, the first line of the code that follows it using
   * a literal the quote names, else its first line; `asked`, the line holding most of those literals and of the
   * question's terms, each term weighted by its rarity among the lines; either when the quotes leave room for it.
   */
  command?: 'named' | 'asked';
  /**
   * A command of a docs page's shell block with a comment after it that says what it does (`pytest -l  # show local
   * variables (shortcut)`): quotable whole, as code (`quote`, default), or not (`skip`: the docs' code blocks are never quoted).
   */
  commentedLines?: 'quote' | 'skip';
  /**
   * Where an answer shows a command (`command`): after a how-to answer's best quote alone (`best`), or also after every
   * quote that introduces a code block with a colon (`introduced`, default: "For permanent activation, use:"), question
   * of any kind, while the quotes leave room.
   */
  commands?: 'best' | 'introduced';
}

export const EXTRACTIVE_DEFAULTS: Required<ExtractiveOptions> = {
  maxSentences: 5,
  maxChars: 700,
  minBlocks: 2,
  minCoverage: 0.34,
  minRelevance: 0.86,
  // 0.02 (the median gap between a Spanish question's best sentence and its English twin's) answered 5 points more
  // of XQuAD's Spanish questions right, and abstained on 2 fewer of 11 held-out unanswerable Spanish docs questions.
  crossLingualDiscount: 0,
  lexicalWeight: 0.1,
  // 12 / 0.08 answered more questions right held out than 6 / 0.04 (64.4 → 71.1% on pytest's test
  // halves, 6 gained, none lost; not significant after correction) for about twice the sentences per
  // answer; in `cita serve` they share model calls of up to one window of tokens (pipeline/session.ts),
  // so an answer takes as many turns at the model as 6 / 0.04 did (4.7 calls per pytest dev answer).
  margin: 0.08,
  semanticBlocks: 12,
  // pages: 8 more answers right over pytest's dev and held-out halves and none fewer (held out 69.4 →
  // 73.1%, en +4.2, es +3.2 pp; p = 0.063 before correction; Black unchanged): the best sentence of
  // another page often beats a second one of the page already quoted at holding the answer.
  spread: 'pages',
  // 5 quotes, the first from 4 pages and the fifth by score (usually the best page's next sentence), against 4 from
  // 4 pages: over five repositories' dev docs questions the answer quotes the reference line more often (en 33.3 →
  // 39.1, es 31.0 → 36.8), as many are answered right (93.1, 89.7), and as many cited files are gold (eval/calibrate-extractive.ts; docs/answers.md).
  spreadPages: 4,
  // 0, 0.1, 0.2 or 0.4 answered no more questions right over five repositories' dev halves (eval/calibrate-extractive.ts).
  rankBonus: 0.05,
  // 5 against 3, with pasted text's code spread one chunk per file (retrieval.pastedPerFile): pytest's where questions
  // answered right (a gold file listed) dev en 72.2 -> 83.3, es 72.2 -> 77.8, held out en 87.5 =, es 81.2 -> 87.5; the
  // share of listed files that are gold about halves (held out 36.5 -> 17.5 en). docs/answers.md.
  whereFiles: 5,
  // abstain-unquoted: over the dev and held-out halves of four repositories' docs questions it abstained on
  // 3 + 2 more of 22 + 18 unanswerable questions and on none of the 148 + 148 answerable ones, nor on
  // pytest's code and issue questions (eval/pooled.ts; not significant: few unanswerable questions).
  unknownNames: 'abstain-unquoted',
  // both: 4 more Spanish answers right over the dev and held-out halves of pytest, none fewer (Black
  // unchanged; not significant): the question's own words where the translator got them wrong.
  meaningQuery: 'both',
  // skip: 7 of 200 dev answers changed, no metric moved (dev A/B, docs/answers.md): the docs' own questions
  // ("So how exactly does Flask handle uploads?") came closest to the user's and answered nothing.
  questionSentences: 'skip',
  answerTypes: 'check',
  // prose, words, asked: over five repositories' docs questions the answer quotes the reference line more often, held out
  // 35.1 → 40.8% (en 37.9 → 43.7, es 32.2 → 37.9; dev 38.5 → 42.0), both splits 36.8 → 41.4 (p_Holm 0.009), answered
  // right 91.7 → 92.0, first cited file 72.7 → 72.1 (docs/languages.md).
  rstBodies: 'prose',
  literals: 'words',
  command: 'asked',
  // quote and introduced: over five repositories' held-out docs questions the answer quotes the reference line more
  // often, en 43.7 → 47.1, es 36.8 → 40.2 (6 questions gained, none lost; p = 0.031, not after Holm), answered right es
  // 89.7 → 90.8, nothing lower; dev unchanged but one reference line gained; pytest's code questions one answer changed
  // (reports/{dev,test}{,-black,-flask,-click,-scrapy,-codeqa}-ab-commands.*, docs/answers.md).
  commentedLines: 'quote',
  commands: 'introduced',
};

/** Cosine similarity of the question and a candidate's quote, when the generator scored it by meaning. */
export type Meaning = (candidate: QuoteCandidate) => number | undefined;

/** A quote needs this many words to say something (`Note:` does not). */
const MIN_WORDS = 3;
/** Words a sentence ending in `::` needs to be quoted: fewer is a label over a literal block (`Here is an example::`). */
const LITERAL_INTRO_WORDS = 5;

const NO_ANSWER: Record<Language, string> = {
  en: 'I could not find the answer in the indexed sources.',
  es: 'No encuentro la respuesta en las fuentes indexadas.',
};
/** A question of function words alone (`como`, `how`, `¿?`): whatever comes closest to it answers nothing asked. */
const NOTHING_ASKED: Record<Language, string> = {
  en: 'I could not find the answer in the indexed sources: the question has no word to look for.',
  es: 'No encuentro la respuesta en las fuentes indexadas: la pregunta no tiene ninguna palabra que buscar.',
};
/** A question that asks for an issue and nothing else, when no issue it names is in the context (the index lacks it). */
const NOT_INDEXED: Record<Language, (refs: string) => string> = {
  en: (refs) => `I could not find the answer in the indexed sources: ${refs} is not among the indexed issues.`,
  es: (refs) => `No encuentro la respuesta en las fuentes indexadas: ${refs} no está entre los issues indexados.`,
};
const NOT_QUOTED: Record<Language, (names: string) => string> = {
  en: (names) => `I could not find the answer in the indexed sources: none of the passages that come closest mentions ${names}.`,
  es: (names) => `No encuentro la respuesta en las fuentes indexadas: ninguno de los pasajes más cercanos menciona ${names}.`,
};

const NOT_GIVEN: Record<Language, Record<AnswerType, string>> = {
  en: {
    date: 'I could not find the answer in the indexed sources: none of the passages that come closest gives a date.',
    price: 'I could not find the answer in the indexed sources: none of the passages that come closest gives a price.',
  },
  es: {
    date: 'No encuentro la respuesta en las fuentes indexadas: ninguno de los pasajes más cercanos da una fecha.',
    price: 'No encuentro la respuesta en las fuentes indexadas: ninguno de los pasajes más cercanos da un precio.',
  },
};

const NOT_MENTIONED: Record<Language, (names: string) => string> = {
  en: (names) => `I could not find the answer in the indexed sources: none of the passages found mentions ${names}.`,
  es: (names) => `No encuentro la respuesta en las fuentes indexadas: ninguno de los pasajes encontrados menciona ${names}.`,
};

type SourceKind = 'docs' | 'code' | 'issues' | 'mixed';
const LEAD_IN: Record<Language, Record<SourceKind, string>> = {
  en: {
    docs: 'According to the documentation:',
    code: 'According to the code:',
    issues: 'According to the issues:',
    mixed: 'According to the sources:',
  },
  es: {
    docs: 'Según la documentación:',
    code: 'Según el código:',
    issues: 'Según los issues:',
    mixed: 'Según las fuentes:',
  },
};
const ONE_ISSUE: Record<Language, (n: number) => string> = {
  en: (n) => `According to issue #${n}:`,
  es: (n) => `Según el issue #${n}:`,
};

const CODE_RULES = new Set(['identifier', 'code vocabulary', 'where phrasing']);

/**
 * The question asks about code, so signatures may be quoted: the router's call (a name, code
 * vocabulary or a "where" question fired), not a second classifier of the generator's own.
 */
export function isCodeQuestion(question: string): boolean {
  return route(question).fired.some((rule) => CODE_RULES.has(rule));
}

/** A quotable piece of a block. `quote` is whitespace-normalised text of the block; `display` is how the answer shows it. */
export interface QuoteCandidate {
  marker: number;
  /** Position in the block body, to keep quotes in reading order. */
  offset: number;
  quote: string;
  display: string;
  terms: Set<string>;
}

const MARKER_LIKE = /\[\d+(?:\s*,\s*\d+)*\]/;
/** Markup that opens a line but says nothing: list bullets, block quotes, rst directives. */
const LINE_OPENER = /^(?:(?:[-*+•]|\d{1,3}[.)]|#\.)\s+|>\s*|\.\.\s+[\w:-]+::\s*)+/;

function wordCount(text: string): number {
  return text.match(/\p{L}[\p{L}\p{N}'’-]*/gu)?.length ?? 0;
}

/** A plain word, possibly with sentence punctuation, an apostrophe or an rst/Markdown literal around it. */
const PLAIN_TOKEN = /^[(\[«“"'`*]*\p{L}[\p{L}\p{M}'’-]*[)\]»”"'`*.,;:!?]*$/u;
/** A compiler's or a traceback's place, `file:line:`, opening a line of output. */
const OUTPUT_PLACE = /^\S+:\d+:(?:\s|$)/;
/** Rules and separators of console output (`____ test_x ____`, `=====`). */
const RULE = /_{4,}|={4,}|-{4,}|\+{4,}/;

/** An inline literal, with the rst role that may name it: ``--lf``, `app.config`, :func:`pytest.skip`. */
const INLINE_LITERAL = /(?::[\w.:+-]+:)?`+[^`\n]+`+/g;

/** How sentences are told from code (`ExtractiveOptions.rstBodies`, `literals`, `commentedLines`). */
export type ProseOptions = Pick<Required<ExtractiveOptions>, 'rstBodies' | 'literals'> & Pick<ExtractiveOptions, 'commentedLines'>;

/**
 * Prose, not console output or code that lost its block (a chunk cut inside a literal block):
 * two thirds of its tokens are plain words, and no rule of underscores or equals signs. With
 * `literals: words` an inline literal is one word of the sentence (``--lf``, ``--last-failed`` - to only re-run the failures).
 */
function isProse(text: string, literals: ProseOptions['literals']): boolean {
  if (RULE.test(text)) return false;
  const tokens = (literals === 'words' ? text.replace(INLINE_LITERAL, 'literal') : text).split(/\s+/).filter((t) => t !== '');
  return tokens.filter((t) => PLAIN_TOKEN.test(t)).length >= (2 * tokens.length) / 3;
}

function prosePiece(marker: number, offset: number, raw: string, maxChars: number, corpus: Language, literals: ProseOptions['literals']): QuoteCandidate | undefined {
  const quote = normaliseText(raw).replace(LINE_OPENER, '');
  if (wordCount(quote) < MIN_WORDS || quote.length > maxChars || !isProse(quote, literals)) return undefined;
  // A literal `[2]` would read as a marker; headings and rst comments and targets (`.. _skip:`) are not sentences,
  // nor is a label over an rst literal block (`Example usage::`); a sentence that introduces one is, and often the one
  // that answers (`…you can limit that by setting the ``MAX_CONTENT_LENGTH`` config key::`).
  // Nor is a line that opens with a place in a file (`<console>:3: LookupError: A`, `test_x.py:12: AssertionError`): output.
  if (MARKER_LIKE.test(quote) || quote.startsWith('#') || quote.startsWith('..') || OUTPUT_PLACE.test(quote) || (quote.endsWith('::') && wordCount(quote) < LITERAL_INTRO_WORDS)) return undefined;
  return { marker, offset, quote, display: quote, terms: contentTerms(quote, corpus) };
}

/**
 * Issue and PR templates speak to the reporter, not about the bug: HTML comments (`<!-- Thanks for
 * submitting… -->`) and checklist items (`- [ ] closes #…`) are blanked, same length, so offsets hold.
 */
const TEMPLATE = /<!--[\s\S]*?(?:-->|(?![\s\S]))|^[ \t]*(?:[-*+][ \t]+)?\[[ xX]\].*$/gm;

/**
 * rst directives whose body is prose: admonitions, version notes and the descriptions of documented objects
 * (Sphinx's `confval`, `py:attribute`, `option`; Scrapy's `setting`, `signal`). Any other directive may hold code
 * under its own name (`.. click:example::`, `.. tab::`), so its body stays code.
 */
const PROSE_DIRECTIVE =
  /^\s*\.\.\s+(?:[\w-]+:)?(?:note|warning|tip|important|caution|attention|danger|error|hint|seealso|admonition|versionadded|versionchanged|deprecated|versionremoved|todo|topic|sidebar|rubric|confval|option|envvar|attribute|attr|method|function|class|data|exception|module|describe|object|setting|signal|reqmeta|command|event|decorator|property|type|var|const|macro|member)::/;

/** The least indentation of a unit's lines that hold something. */
const indentOfUnit = (u: TextUnit) => Math.min(...u.text.split('\n').filter((l) => l.trim() !== '').map(indentOf));

/**
 * The units of an rst page's chunk (`rstBodies: prose`). rst marks its literal blocks (`::`, `.. code-block::`), and
 * splitUnits reads those as code; the rest of its indented text is prose where what opens it is prose: the body of an
 * admonition or of an object's description (`.. warning::`, `.. confval::`, PROSE_DIRECTIVE), a block quote or a
 * definition under a paragraph. It stays code under any other directive (`.. click:example::`), in the indented units
 * that open the chunk (cut inside a literal block, whose `::` is in the chunk before), and in a traceback.
 */
function rstUnits(body: string): TextUnit[] {
  const units = splitUnits(body);
  return units.map((unit, i) => {
    if (unit.kind !== 'prose') return unit;
    if (isTraceback(unit.text)) return { ...unit, kind: 'code' };
    const own = indentOfUnit(unit);
    if (own === 0) return unit;
    // What opens this indented text: the nearest unit before it that is indented less. Under a directive, its body
    // reads as the directive's: a later paragraph of a code example is code too.
    const opener = units.slice(0, i).reverse().find((u) => indentOfUnit(u) < own);
    const prose = opener !== undefined && opener.kind === 'prose' && (!DIRECTIVE.test(opener.text) || PROSE_DIRECTIVE.test(opener.text));
    return prose ? unit : { ...unit, kind: 'code' };
  });
}

/** How a docs or issue block's body is cut into units for quoting: `rstUnits` for an rst page under `rstBodies: prose`, else `issueUnits`. */
function bodyUnits(block: ContextBlock, body: string, prose: ProseOptions): TextUnit[] {
  const rst = block.chunk.collection === 'docs' && prose.rstBodies === 'prose' && /\.rst$/i.test(block.citation.path);
  return rst ? rstUnits(body) : issueUnits(body);
}

/** Sentences of the prose units of a doc or issue body; code blocks and tables are not quoted. */
function proseCandidates(block: ContextBlock, rawBody: string, maxChars: number, corpus: Language, prose: ProseOptions): QuoteCandidate[] {
  const issue = block.chunk.collection === 'issues';
  const body = issue ? rawBody.replace(TEMPLATE, (m) => m.replace(/[^\n]/g, ' ')) : rawBody;
  // Indented blocks and tracebacks are code in issues and docs alike (a doc chunk cut inside a
  // literal block starts with its indented lines, and splitUnits alone would read them as prose),
  // but for rst's indented prose (`rstBodies: prose`).
  const units = bodyUnits(block, body, prose);
  const out: QuoteCandidate[] = [];
  const end = body.trimEnd().length;
  let offset = 0;
  for (const unit of units) {
    if (unit.kind === 'prose') {
      let at = offset;
      for (const piece of splitProse(unit.text)) {
        // Where the budget cut the block, its last sentence may be cut short: not quoted half.
        const cutShort = block.cut !== undefined && at + piece.trimEnd().length >= end && !/[.!?:;]["')*`]*$/.test(piece.trimEnd());
        const c = cutShort ? undefined : prosePiece(block.marker, at, piece, maxChars, corpus, prose.literals);
        if (c) out.push(c);
        at += piece.length;
      }
    } else if (!issue && prose.commentedLines === 'quote') out.push(...commentedLines(block, offset, unit.text, maxChars, corpus, prose.literals));
    offset += unit.text.length;
  }
  return out;
}

/** The code part of a quotable commented line is short: a command, not a long call. */
const MAX_COMMENTED_CODE = 100;
/** A code block of shell commands: rst's directive or a Markdown fence naming a shell or a console session. */
const SHELL_BLOCK = /^\s*(?:\.\.\s+(?:code-block|code|sourcecode)::|```+|~~~+)\s*(?:bash|sh|shell|console|shell-session|zsh|fish|doscon|bat|batch|cmd|powershell|pwsh|ps1)\s*$/im;

/**
 * The commented command lines of a docs code unit (`commentedLines: quote`), each quoted whole as code: the comment
 * says in prose what the command does, which is often the whole answer to a how-to question and no sentence of the page
 * says (pytest's output options are listed so). Commands are the lines of a shell block (`.. code-block:: bash`,
 * ```` ```console ````) and lines after a shell's prompt (`$ `); the comment must read as prose of MIN_WORDS words or more.
 * Measured first on every commented line of a block: on dev it also quoted Python's (`process.start()  # the script
 * will block here until the crawling is finished`), which answered nothing asked.
 */
function commentedLines(block: ContextBlock, offset: number, text: string, maxChars: number, corpus: Language, literals: ProseOptions['literals']): QuoteCandidate[] {
  const out: QuoteCandidate[] = [];
  const lines = text.split('\n');
  const shell = SHELL_BLOCK.test(lines.find((l) => l.trim() !== '') ?? '');
  let at = offset;
  for (const [i, line] of lines.entries()) {
    // A command, of a shell block or after a shell's prompt: a statement's comment in a program explains the program.
    const m = shell || /^\s*\$\s/.test(line) ? commentedLine(line) : undefined;
    const code = m?.code;
    const comment = m?.comment;
    at += line.length + 1;
    // A comment that goes on under the line (`# Environment dependent alternatives include` / `# 'python setup.py develop'…`) is cut short on it.
    const continued = /^\s*(?:#|\/\/)/.test(lines[i + 1] ?? '');
    if (!code || !comment || continued || code.length > MAX_COMMENTED_CODE || !/\p{L}/u.test(code) || wordCount(comment) < MIN_WORDS || !isProse(comment, literals)) continue;
    const quote = normaliseText(line.trim());
    if (quote.length > maxChars || quote.includes('`') || MARKER_LIKE.test(quote)) continue;
    out.push({ marker: block.marker, offset: at - line.length - 1, quote, display: `\`${quote}\``, terms: contentTerms(quote, corpus) });
  }
  return out;
}

const TRIPLE_QUOTE = /^[rRbBuUfF]{0,2}("""|''')/;
const SIGNATURE =
  /^(?:export\s+)?(?:async\s+)?(?:def|class|function|fn|func|interface|type|struct|enum|impl|trait|pub|public|private|protected|static|const|let|var)\b/;

/**
 * Quotable text of a code block: comment lines and docstring sentences; and, when the question is
 * about code, the block's signature (its first definition line, else its first code line).
 */
function codeCandidates(block: ContextBlock, header: string, body: string, codeQuestion: boolean, maxChars: number, corpus: Language, literals: ProseOptions['literals']): QuoteCandidate[] {
  const comment = /^(\S+)\s/.exec(header)?.[1] ?? '#';
  const out: QuoteCandidate[] = [];
  let signature: { offset: number; line: string } | undefined;
  let firstCode: { offset: number; line: string } | undefined;
  let doc: { close: string; offset: number; lines: string[] } | undefined;
  const flushDoc = () => {
    if (!doc) return;
    // Paragraphs of the docstring, lines joined as the normalised block text joins them.
    // Paragraphs end at blank lines and at doctest lines (`>>>`, `...`), which are code.
    const paragraphs: string[][] = [[]];
    for (const l of doc.lines) {
      if (l === '' || /^(?:>>>|\.\.\.)/.test(l)) paragraphs.push([]);
      else paragraphs[paragraphs.length - 1]!.push(l);
    }
    let at = doc.offset;
    for (const para of paragraphs) {
      for (const piece of splitProse(para.join(' '))) {
        const c = prosePiece(block.marker, at, piece, maxChars, corpus, literals);
        if (c) out.push(c);
        at += 1;
      }
    }
    doc = undefined;
  };
  let offset = 0;
  for (const line of body.split('\n')) {
    const trimmed = line.trim();
    if (doc) {
      const end = trimmed.indexOf(doc.close);
      if (end >= 0) {
        doc.lines.push(trimmed.slice(0, end));
        flushDoc();
      } else doc.lines.push(trimmed);
    } else if (TRIPLE_QUOTE.test(trimmed)) {
      const open = TRIPLE_QUOTE.exec(trimmed)!;
      const rest = trimmed.slice(open[0].length);
      const end = rest.indexOf(open[1]!);
      doc = { close: open[1]!, offset, lines: [end >= 0 ? rest.slice(0, end) : rest] };
      if (end >= 0) flushDoc();
    } else if (trimmed.startsWith(comment) || (comment === '//' && /^\/?\*/.test(trimmed))) {
      // `//` languages also write `/** … */` blocks; in Python a leading `*` is `*args`.
      const text = trimmed.replace(comment === '#' ? /^#+!?\s*/ : /^(?:\/\/+!?|\/?\*+)\s*/, '').replace(/\s*\*\/$/, '');
      const c = prosePiece(block.marker, offset, text, maxChars, corpus, literals);
      if (c) out.push(c);
    } else if (trimmed !== '') {
      if (!signature && SIGNATURE.test(trimmed)) signature = { offset, line: trimmed };
      if (!firstCode && !trimmed.startsWith('@')) firstCode = { offset, line: trimmed };
    }
    offset += line.length + 1;
  }
  flushDoc();
  const sig = signature ?? firstCode;
  if (codeQuestion && sig && sig.line.length <= maxChars) {
    const quote = normaliseText(sig.line);
    const plain = quote.includes('`');
    if (!(plain && MARKER_LIKE.test(quote))) {
      // Scored with the symbol's name too: `def evaluate(self)` in `Skip.evaluate` is about `Skip`.
      const terms = contentTerms(`${block.citation.symbol ?? ''} ${quote}`, corpus);
      out.push({ marker: block.marker, offset: sig.offset, quote, display: plain ? quote : `\`${quote}\``, terms });
    }
  }
  return out;
}

/**
 * The sentence asks rather than tells: it ends with `?`, closing quotes or markup aside ("So how exactly does Flask
 * handle uploads?", "New to _Black_?"). The docs ask their reader's question before answering it, so such a
 * sentence comes closest to the question and answers nothing. Pure.
 */
export function asks(quote: string): boolean {
  return /\?[\s"'”’»)*_`]*$/u.test(quote);
}

/** The candidates a quote answer may use: `quoteCandidates` less those that ask (`questionSentences: skip`). */
function answering(candidates: QuoteCandidate[], options: Required<ExtractiveOptions>): QuoteCandidate[] {
  return options.questionSentences === 'skip' ? candidates.filter((c) => !asks(c.quote)) : candidates;
}

/** Everything quotable in the context, block by block, in reading order. */
export function quoteCandidates(context: Context, codeQuestion: boolean, maxChars = EXTRACTIVE_DEFAULTS.maxChars, prose: ProseOptions = EXTRACTIVE_DEFAULTS): QuoteCandidate[] {
  const corpus = context.corpus ?? 'en';
  const all = context.blocks.flatMap((block) => {
    const { header, body } = splitBlockText(block.chunk, block.text);
    return block.chunk.collection === 'code'
      ? codeCandidates(block, header, body, codeQuestion, maxChars, corpus, prose.literals)
      : proseCandidates(block, body, maxChars, corpus, prose);
  });
  // A sentence that two different issues both say is boilerplate (a template line), not about either.
  const issuesSaying = new Map<string, Set<number>>();
  for (const c of all) {
    const n = context.blocks[c.marker - 1]!.citation.issue;
    if (n === undefined) continue;
    const key = c.quote.toLowerCase();
    issuesSaying.set(key, (issuesSaying.get(key) ?? new Set()).add(n));
  }
  return all.filter((c) => (issuesSaying.get(c.quote.toLowerCase())?.size ?? 0) < 2);
}

interface Scored extends QuoteCandidate {
  coverage: number;
  /** Lexical mode: the coverage; by meaning: cosine + lexicalWeight × coverage (undefined: not scored). */
  relevance: number | undefined;
  score: number;
}

/**
 * Coverage of the question's terms, each weighted by its rarity among the candidates (an IDF), plus
 * the rank bonus. A term found in no candidate weighs as little as the commonest term found: it is
 * mostly vocabulary mismatch (a paraphrase), since retrieval already judged these blocks relevant;
 * as a rare word it would veto every sentence. By meaning, relevance is the cosine plus a little
 * coverage.
 */
function scoreCandidates(questionTerms: Set<string>, candidates: QuoteCandidate[], blocks: number, meaning: Meaning | undefined, lexicalWeight: number, rankBonus: number): Scored[] {
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of questionTerms) if (c.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (n: number) => Math.log(1 + (candidates.length + 1) / (n + 0.5));
  const absent = df.size > 0 ? idf(Math.max(...df.values())) : 0;
  const weight = (t: string) => (df.has(t) ? idf(df.get(t)!) : absent);
  let total = 0;
  for (const t of questionTerms) total += weight(t);
  return candidates.map((c) => {
    let hit = 0;
    for (const t of questionTerms) if (c.terms.has(t)) hit += weight(t);
    const coverage = total > 0 ? hit / total : 0;
    const cosine = meaning?.(c);
    const relevance = meaning ? (cosine === undefined ? undefined : cosine + lexicalWeight * coverage) : coverage;
    return { ...c, coverage, relevance, score: (relevance ?? -1) + (rankBonus * (blocks - c.marker + 1)) / blocks };
  });
}

/** Best first; ties by block rank, then reading order, so the choice is deterministic. */
function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || a.marker - b.marker || a.offset - b.offset;
}

/** The candidates relevant enough to quote: over the threshold and, by meaning, near the best. */
function eligible(scored: Scored[], options: Required<ExtractiveOptions>, byMeaning: boolean, crossLingual: boolean): Scored[] {
  if (!byMeaning) return scored.filter((c) => c.coverage >= options.minCoverage && c.coverage > 0).sort(byScore);
  const rel = scored.filter((c): c is Scored & { relevance: number } => c.relevance !== undefined);
  const best = Math.max(-Infinity, ...rel.map((c) => c.relevance));
  const least = options.minRelevance - (crossLingual ? options.crossLingualDiscount : 0);
  return rel.filter((c) => c.relevance >= least && c.relevance >= best - options.margin).sort(byScore);
}

/**
 * The quotes of the answer: the best, then (`spread: pages`) the best of each page not quoted yet
 * while one qualifies, or (`blocks`) the best of another block until `minBlocks` blocks are quoted;
 * then the rest by score, within the sentence and character limits; returned in reading order
 * (block, then position).
 */
function selectQuotes(candidates: Scored[], options: Required<ExtractiveOptions>, pageOf: (marker: number) => string): Scored[] {
  const chosen: Scored[] = [];
  const seen = new Set<string>();
  let chars = 0;
  const take = (c: Scored) => {
    const key = c.quote.toLowerCase();
    if (chosen.length >= options.maxSentences || seen.has(key) || chars + c.quote.length > options.maxChars) return false;
    chosen.push(c);
    seen.add(key);
    chars += c.quote.length;
    return true;
  };
  // A quote from a part (block, or page) no chosen quote comes from, best first, while one fits.
  const spreadOver = (partOf: (c: Scored) => string, enough: (parts: number) => boolean) => {
    for (;;) {
      const parts = new Set(chosen.map(partOf));
      if (enough(parts.size)) break;
      const next = candidates.find((c) => !parts.has(partOf(c)) && take(c));
      if (!next) break;
    }
  };
  if (options.spread === 'pages') spreadOver((c) => pageOf(c.marker), (n) => chosen.length >= options.maxSentences || n >= options.spreadPages);
  else spreadOver((c) => String(c.marker), (n) => n >= options.minBlocks);
  for (const c of candidates) if (!chosen.includes(c)) take(c);
  return chosen.sort((a, b) => a.marker - b.marker || a.offset - b.offset);
}

function leadIn(language: Language, blocks: ContextBlock[]): string {
  const issues = new Set(blocks.map((b) => b.citation.issue));
  if (blocks.every((b) => b.chunk.collection === 'issues') && issues.size === 1) {
    const [n] = issues;
    if (n !== undefined) return ONE_ISSUE[language](n);
  }
  const kinds = new Set(blocks.map((b) => b.chunk.collection));
  const [only] = kinds;
  return LEAD_IN[language][kinds.size === 1 && only ? only : 'mixed'];
}

// --- answer shapes ------------------------------------------------------------------------------

const WHERE = /(?<![\p{L}\p{N}_])(?:where|which\s+files?|what\s+files?|d[oó]nde|qu[eé]\s+(?:ficheros?|archivos?)|en\s+qu[eé]\s+(?:fichero|archivo|parte))(?![\p{L}\p{N}_])/iu;
const HOW_TO = /(?<![\p{L}\p{N}_])(?:how\s+(?:do|can|should|to)|c[oó]mo|hay\s+(?:forma|manera)|se\s+puede|quiero)(?![\p{L}\p{N}_])/iu;

export type AnswerShape = 'quote' | 'where' | 'issue';

/** What a question that asks for an issue and nothing else says besides its reference (`What does issue #7432 say?`). */
const ABOUT_ISSUE = 'say says tell mean means describe describes explain explains summarise summarize summary dice dicen trata tratan cuenta explica significa resume resumen';

/** What a question that asks where an issue's bug is says besides (`Where is the bug from issue #7432 fixed?`). */
const ISSUE_PLACE = 'bug bugs fix fixed fixes file files code error errors problem arregla arreglan arreglo fallo fallos error errores fichero ficheros archivo archivos código problema';

/** Whether a question asks for an issue and nothing else (`#7432`, `¿Qué dice la incidencia 7432?`): its other words are all `about`'s. Pure. */
function asksForIssue(question: string, language: Language, aboutWords = ABOUT_ISSUE): boolean {
  // The references the router looked the issue up by.
  const rest = withoutIssueRefs(question);
  if (rest === question) return false;
  const about = contentTerms(aboutWords, language);
  return [...contentTerms(rest, language)].every((t) => about.has(t));
}

/**
 * The issues a question that asks for them, or where their bug is, and nothing else names (`#99999`, `Where is the bug
 * from issue #99999?`) none of which the context holds: a looked-up issue is always placed in it, so the index lacks
 * them, and whatever else comes close answers nothing asked.
 */
function unindexedIssues(question: string, context: Context): number[] {
  if (!asksForIssue(question, context.language, `${ABOUT_ISSUE} ${ISSUE_PLACE}`)) return [];
  const refs = issueRefs(question);
  const held = new Set(context.blocks.map((b) => b.citation.issue));
  return refs.some((n) => held.has(n)) ? [] : refs;
}

/**
 * How to answer: `issue` when the context opens with a looked-up issue and the question asks where
 * (its fix is in the code) or asks for the issue and nothing else (`#7432`); `where` for a where-question or a pasted issue whose context's
 * files are mostly code (its first three files' blocks: a pasted issue finds itself and its like among the issues too,
 * and those say nothing of where to look); otherwise `quote`.
 */
export function answerShape(question: string, context: Context): AnswerShape {
  const top = context.blocks.filter((b) => b.chunk.collection !== 'issues').slice(0, 3);
  const codeLed = top.length > 0 && top.filter((b) => b.chunk.collection === 'code').length >= Math.ceil(top.length / 2);
  const hasCode = context.blocks.some((b) => b.chunk.collection === 'code');
  const asksWhere = WHERE.test(question) || WHERE.test(context.translation ?? '');
  const first = context.blocks[0];
  if (first?.scores.via === 'lookup' && first.chunk.collection === 'issues' && ((asksWhere && hasCode) || asksForIssue(question, context.language))) return 'issue';
  if (hasCode && codeLed && (asksWhere || pastedReason(question) !== undefined)) return 'where';
  return 'quote';
}

const WHERE_LEAD: Record<Language, string> = { en: 'Where to look:', es: 'Dónde mirar:' };

/** A comment that is a URL and nothing else (`# https://…`, `// see: https://…`). */
const URL_COMMENT = /^(?:#|\/\/)\s*(?:[\w ]{0,20}:\s*)?(?:https?:\/\/|www\.)\S+$/;

/**
 * The line of a code block that holds most of the terms (a definition line scores a half more, and
 * wins when no line holds any); lines without two words (separators, brackets) and comments that are a
 * URL alone (`# https://github.com/python/cpython/blob/…/_bootstrap.py#L1308`: its words match, it says nothing)
 * are never chosen.
 */
function telltaleLine(block: ContextBlock, terms: Set<string>, corpus: Language): string | undefined {
  const { body } = splitBlockText(block.chunk, block.text);
  let best: { line: string; score: number } | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line.length > 160 || line.includes('`') || (line.match(/\p{L}{2,}/gu) ?? []).length < 2 || URL_COMMENT.test(line)) continue;
    const lineTerms = contentTerms(line, corpus);
    let score = 0;
    for (const t of terms) if (lineTerms.has(t)) score++;
    if (SIGNATURE.test(line)) score += 0.5;
    if (!best || score > best.score) best = { line, score };
  }
  return best?.line;
}

/** One line per file: `path` (symbol): `the telltale line` [n], for the first code files of the context. */
function whereLines(context: Context, terms: Set<string>, files: number): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const block of context.blocks) {
    if (block.chunk.collection !== 'code' || seen.has(block.citation.path)) continue;
    seen.add(block.citation.path);
    const line = telltaleLine(block, terms, context.corpus ?? 'en');
    // The symbol's own name (`parametrize` of `Metafunc.parametrize`) is what the block's text holds.
    const name = block.citation.symbol?.split('.').pop();
    const symbol = name ? ` (${name})` : '';
    lines.push(`- \`${block.citation.path}\`${symbol}${line ? `: \`${line}\`` : ''} [${block.marker}]`);
    if (lines.length >= files) break;
  }
  return lines;
}

/** The issue's opening prose sentences (two at most): what the bug is, in the reporter's words. */
function issueSummary(candidates: QuoteCandidate[], context: Context, issue: number): QuoteCandidate[] {
  return candidates
    .filter((c) => context.blocks[c.marker - 1]!.citation.issue === issue && !c.quote.startsWith('`') && wordCount(c.quote) >= 6)
    .sort((a, b) => a.marker - b.marker || a.offset - b.offset)
    .slice(0, 2);
}

/** An issue block's title as its header line writes it (`Issue #N: title`, issueTitleLine), when it has one. */
function issueTitle(block: ContextBlock): string | undefined {
  const title = new RegExp(`^Issue #${block.citation.issue}: (.+)$`, 'm').exec(block.text)?.[1]?.trim();
  return title && wordCount(title) >= 3 ? title : undefined;
}

/** Literal spans a sentence names (``MAX_CONTENT_LENGTH``, `--lf`, :func:`tmp_path`): what the code after it should show. */
function literalsOf(quote: string): string[] {
  return [...quote.matchAll(/`+([^`]+?)`+/g)].map((m) => m[1]!.replace(/^~/, '').replace(/\(\)$/, '').split('.').at(-1)!.trim()).filter((l) => l.length >= 2);
}

/**
 * The line of the code block that follows a quote in its block: the command a how-to answer shows. The first line
 * that uses something the quote names as a literal (`app.config['MAX_CONTENT_LENGTH'] = …` after "…setting the
 * ``MAX_CONTENT_LENGTH`` config key::", not the block's `from flask import Flask`), else its first line; `asked`
 * (`command: asked`), the line with the most of both those and the question's terms, each term by its rarity among the
 * lines and a named literal as two of the rarest (`@click.option('-v', '--verbose', count=True)` for "pass -v several times to increase the verbosity", not the
 * `@click.command()` above it), the first such line on a tie.
 * `introduced` (a quote other than the best that ends with a colon, `shownCommands`): only the code right after it, and
 * the line as `shownCommands` says.
 */
function commandAfter(context: Context, quote: QuoteCandidate, asked?: { terms: Set<string>; prose: ProseOptions }, introduced = false): string | undefined {
  const block = context.blocks[quote.marker - 1]!;
  if (block.chunk.collection !== 'docs') return undefined;
  const { body } = splitBlockText(block.chunk, block.text);
  const named = literalsOf(quote.quote);
  const corpus = context.corpus ?? 'en';
  const terms = asked?.terms;
  let offset = 0;
  // Asked: the code as the quotes were read (an indented example under `.. click:example::` is code there too).
  for (const unit of asked ? bodyUnits(block, body, asked.prose) : splitUnits(body)) {
    const start = offset;
    offset += unit.text.length;
    if (start <= quote.offset) continue;
    // A quote that introduces code is followed by it: prose between says the code is another's.
    if (unit.kind !== 'code' && introduced) return undefined;
    if (unit.kind !== 'code') continue;
    const lines = unit.text
      .split('\n')
      .map((l) => l.trim())
      // Markup, and comments: a line that only says what follows (`# content of test_compute.py`) is no command.
      .filter((l) => l !== '' && !/^(?:\.\.\s|```|~~~|:\w+:|(?:#|\/\/)(?:\s|$))/.test(l))
      // After a quote that is not the best, only a line that holds something asked or named, and not a rule of output.
      .filter((l) => !introduced || !RULE.test(l));
    // Where some lines open with a prompt (`$ pytest --lf`, `>>> app.config`), the others are what the commands printed.
    const prompted = introduced ? lines.filter((l) => PROMPT.test(l)) : [];
    if (prompted.length) lines.splice(0, lines.length, ...prompted);
    const byNamed = lines.find((l) => named.some((n) => l.includes(n)));
    const line = terms ? askedLine(lines, named, terms, corpus, introduced) : introduced ? byNamed : (byNamed ?? lines[0]);
    if (line && line.length <= 200 && !line.includes('`') && !MARKER_LIKE.test(line)) return line;
    return undefined;
  }
  return undefined;
}

/**
 * `command: asked`'s line: the most of the named literals and the question's terms, each term by its rarity among the
 * lines (a term of every line, `click` in a Click example, says nothing about which) and a named literal as two of
 * the rarest; the first such line on a tie.
 */
function askedLine(lines: string[], named: string[], terms: Set<string>, corpus: Language, holding = false): string | undefined {
  const termsOf = lines.map((l) => contentTerms(l, corpus));
  const weights = [...terms].map((t) => {
    const n = termsOf.filter((ts) => ts.has(t)).length;
    return [t, n === 0 ? 0 : Math.log((lines.length + 1) / n)] as const;
  });
  const scores = lines.map((l, i) => 2 * Math.log(lines.length + 1) * named.filter((n) => l.includes(n)).length + weights.reduce((sum, [t, w]) => sum + (termsOf[i]!.has(t) ? w : 0), 0));
  const best = Math.max(...scores);
  // `holding`: none when no line holds a named literal or a question's term that some line lacks.
  return holding && !(best > 0) ? undefined : lines[scores.indexOf(best)];
}

/** A how-to answer's command (see `commandAfter`): the quote it follows and the line, when the quotes leave room for it. */
function howToCommand(question: string, context: Context, chosen: Scored[], terms: Set<string>, opts: Required<ExtractiveOptions>): { after: Scored; line: string } | undefined {
  if (!HOW_TO.test(question)) return undefined;
  const best = [...chosen].sort(byScore)[0]!;
  const line = commandAfter(context, best, opts.command === 'asked' ? { terms, prose: opts } : undefined);
  if (!line || chosen.some((c) => c.quote.includes(normaliseText(line)))) return undefined;
  return chosen.reduce((n, c) => n + c.quote.length, 0) + line.length <= opts.maxChars ? { after: best, line } : undefined;
}

/** A shell's or Python's prompt opening a line of a session. */
const PROMPT = /^(?:\$|>>>)\s/;

/** A sentence that introduces what follows it: it ends with a colon (`use:`, rst's `::`). */
const INTRODUCES = /:[*_`"')\]]*$/;

/**
 * The commands an answer shows, each after the quote it follows: the best quote's (`howToCommand`) and, with
 * `commands: introduced`, the code line after each quote that introduces a code block with a colon, the line chosen as
 * `command` says among those that hold a literal the quote names or a term of the question (`[pytest]` over an ini
 * file's lines, `import os`, holds neither), are no rule of console output and, where some lines of the block open with
 * a prompt, open with one (the others are output: `test_50.py FF....  [100%]`), while the quotes and the lines leave
 * room; never a line a quote or an earlier line already shows.
 */
function shownCommands(question: string, context: Context, chosen: Scored[], terms: Set<string>, opts: Required<ExtractiveOptions>): { after: Scored; line: string }[] {
  const best = howToCommand(question, context, chosen, terms, opts);
  const out = best ? [best] : [];
  if (opts.commands !== 'introduced') return out;
  let chars = chosen.reduce((n, c) => n + c.quote.length, 0) + (best?.line.length ?? 0);
  for (const c of chosen) {
    if (out.some((o) => o.after === c) || !INTRODUCES.test(c.quote)) continue;
    const line = commandAfter(context, c, opts.command === 'asked' ? { terms, prose: opts } : undefined, true);
    if (!line || chars + line.length > opts.maxChars) continue;
    const shown = normaliseText(line);
    if (chosen.some((q) => q.quote.includes(shown)) || out.some((o) => normaliseText(o.line) === shown)) continue;
    out.push({ after: c, line });
    chars += line.length;
  }
  return out;
}

/** The extractive answer for a question over a context (pure; the generator wraps it, adding `meaning`). */
export function extractiveAnswer(question: string, context: Context, options: ExtractiveOptions = {}, meaning?: Meaning): GeneratedAnswer {
  const opts = { ...EXTRACTIVE_DEFAULTS, ...options };
  const language = context.language;
  const base = { language, generator: 'extractive', verbatim: true };
  // English terms for English sources: the translation, when the question was translated.
  const corpus = context.corpus ?? 'en';
  const terms = context.translation !== undefined ? contentTerms(context.translation, corpus) : contentTerms(question, language);
  const shape = answerShape(question, context);
  const unindexed = shape !== 'issue' ? unindexedIssues(question, context) : [];
  if (unindexed.length) return { ...base, text: NOT_INDEXED[language](unindexed.map((n) => `#${n}`).join(', ')), noAnswer: true };
  const candidates = quoteCandidates(context, isCodeQuestion(question), opts.maxChars, opts);

  if (shape !== 'quote') {
    const parts: string[] = [];
    const quotes: { marker: number; text: string }[] = [];
    let whereTerms = terms;
    if (shape === 'issue') {
      const issue = context.blocks[0]!;
      const n = issue.citation.issue!;
      // An issue whose body is a template, logs and code says what it is in its title alone.
      const own = issueSummary(candidates, context, n);
      const title = own.length === 0 ? issueTitle(issue) : undefined;
      if (title !== undefined) own.push({ marker: issue.marker, offset: 0, quote: title, display: title, terms: new Set() });
      if (own.length) parts.push(ONE_ISSUE[language](n), '', ...own.map((c) => `- “${c.quote}” [${c.marker}]`), '');
      quotes.push(...own.map((c) => ({ marker: c.marker, text: c.quote })));
      // The code is found by the issue's words (the second hop), so its lines are chosen by them too.
      whereTerms = new Set([...terms, ...contentTerms(issue.text, corpus)]);
    }
    const where = whereLines(context, whereTerms, opts.whereFiles);
    if (where.length) parts.push(WHERE_LEAD[language], '', ...where);
    return { ...base, verbatim: false, text: parts.join('\n'), ...(quotes.length ? { quotes } : {}) };
  }

  if (terms.size === 0 && contentTerms(question, language).size === 0) return { ...base, text: NOTHING_ASKED[language], noAnswer: true };
  // Only for questions the docs answer: code questions name classes and modules the passages found
  // need not spell out (measured: on code-qa it cost right answers).
  const docsLed = context.blocks.slice(0, 3).filter((b) => b.chunk.collection === 'docs').length >= 2;
  if (opts.unknownNames !== 'ignore' && docsLed) {
    const unknown = unknownNames(question, context.blocks, context.translation);
    if (unknown.length) return { ...base, text: NOT_MENTIONED[language](unknown.map((n) => `“${n}”`).join(', ')), noAnswer: true };
  }
  const scored = scoreCandidates(terms, answering(candidates, opts), context.blocks.length, meaning, opts.lexicalWeight, opts.rankBonus);
  const pool = terms.size === 0 && !meaning ? [] : eligible(scored, opts, meaning !== undefined, language !== corpus);
  const chosen = selectQuotes(pool, opts, (m) => context.blocks[m - 1]!.citation.path);
  if (chosen.length === 0) return { ...base, text: NO_ANSWER[language], noAnswer: true };
  const quoted = [...new Set(chosen.map((c) => c.marker))].map((m) => context.blocks[m - 1]!);
  if (opts.unknownNames === 'abstain-unquoted' && docsLed) {
    const unquoted = unknownNames(question, quoted, context.translation);
    if (unquoted.length) return { ...base, text: NOT_QUOTED[language](unquoted.map((n) => `“${n}”`).join(', ')), noAnswer: true };
  }
  const wanted = opts.answerTypes === 'check' ? expectedAnswerType(question, context.translation) : undefined;
  if (wanted && !chosen.some((c) => givesAnswerType(wanted, c.quote))) return { ...base, text: NOT_GIVEN[language][wanted], noAnswer: true };
  const lines = chosen.map((c) => `- ${c.display} [${c.marker}]`);
  // The command or code line that follows a how-to answer's best quote, and each quote that introduces one, as the
  // docs give it; the last first, so that each goes in after its quote.
  const commands = shownCommands(question, context, chosen, terms, opts).sort((a, b) => chosen.indexOf(b.after) - chosen.indexOf(a.after));
  for (const command of commands) lines.splice(chosen.indexOf(command.after) + 1, 0, `- \`${command.line}\` [${command.after.marker}]`);
  return { ...base, text: `${leadIn(language, quoted)}\n\n${lines.join('\n')}`, quotes: chosen.map((c) => ({ marker: c.marker, text: c.display })) };
}

/** Sentence vectors kept per generator (the same docs come up again); ~1.5 kB each at 384 dims. */
const SENTENCE_CACHE = 50_000;

/**
 * Cosine of the question and each text, with the multilingual model (passage vectors cached by text in
 * `cache`). Several questions (a question and its translation): their mean vector.
 */
export async function sentenceSimilarities(embedder: Embedder, question: string | string[], texts: string[], cache = new Map<string, Float32Array>()): Promise<number[]> {
  const key = (t: string) => `${embedder.id}\u0000${t}`;
  const missing = [...new Set(texts.filter((t) => !cache.has(key(t))))];
  const [qs, vectors] = await Promise.all([embedder.embedQueries(typeof question === 'string' ? [question] : question), missing.length ? embedder.embedPassages(missing) : Promise.resolve([])]);
  const q = meanVector(qs);
  missing.forEach((t, i) => {
    cache.set(key(t), vectors[i]!);
    if (cache.size > SENTENCE_CACHE) cache.delete(cache.keys().next().value!);
  });
  return texts.map((t) => cosine(q!, cache.get(key(t))!));
}

/** The default generator: quotes the context, offline and deterministic. */
export class ExtractiveGenerator implements Generator {
  readonly id: string;
  private readonly options: ExtractiveOptions;
  private readonly embedder: Embedder | undefined;
  /** Per generator, so two configurations under A/B each pay for their own sentences. */
  private readonly sentenceVectors = new Map<string, Float32Array>();

  /** With an embedder, sentences are chosen by meaning (multilingual); without, by shared words. */
  constructor(options: ExtractiveOptions = {}, embedder?: Embedder) {
    this.options = { ...options };
    this.embedder = embedder;
    this.id = embedder ? 'extractive' : 'extractive:lexical';
  }

  async generate(question: string, context: Context): Promise<GeneratedAnswer> {
    // A "where" or issue answer lists files and the issue's own sentences: no sentence to score.
    if (!this.embedder || answerShape(question, context) !== 'quote') return extractiveAnswer(question, context, this.options);
    const meaning = await this.meaningFor(question, context);
    return extractiveAnswer(question, context, this.options, meaning);
  }

  /** Similarities for the quotable sentences of the top blocks (the model's work is bounded by `semanticBlocks`). */
  async meaningFor(question: string, context: Context): Promise<Meaning> {
    const opts = { ...EXTRACTIVE_DEFAULTS, ...this.options };
    const candidates = answering(quoteCandidates(context, isCodeQuestion(question), opts.maxChars, opts), opts).filter((c) => c.marker <= opts.semanticBlocks);
    const texts = [...new Set(candidates.map((c) => c.quote))];
    // Same-language similarities run higher than cross-lingual ones (measured: one threshold would
    // silence Spanish questions), so a translated question is compared in the corpus language: by its
    // translation, or (`meaningQuery: both`) by the mean of the translation's and its own vectors.
    const query = context.translation === undefined ? question : opts.meaningQuery === 'both' ? [question, context.translation] : context.translation;
    const sims = texts.length ? await sentenceSimilarities(this.embedder!, query, texts, this.sentenceVectors) : [];
    const byText = new Map(texts.map((t, i) => [t, sims[i]!]));
    return (c) => (c.marker <= opts.semanticBlocks ? byText.get(c.quote) : undefined);
  }
}

// --- names the sources must know ----------------------------------------------------------------

/**
 * Names a question mentions, in any language: a capitalised word that does not open its sentence
 * (`Hypothesis`, `GitLab`, `JupyterLab`), or a version or a `+`-suffixed name (`9.0`, `Notepad++`).
 * Hyphenated words are not names (`single-quoted`). Code spans and URLs are skipped (their names are
 * looked up as symbols). Pure.
 */
export function mentionedNames(question: string): string[] {
  const text = question.replace(/`[^`]*`|\bhttps?:\/\/\S+/g, ' ');
  const names: string[] = [];
  for (const sentence of text.split(/[.!?¿¡:;]\s+|\n+|^[¿¡]/)) {
    const tokens = sentence.trim().split(/\s+/);
    tokens.forEach((raw, i) => {
      // A possessive is its name (`Black's` → `Black`).
      const token = raw.replace(/^[("'“«¿¡]+|[)"'”».,;:!?]+$/g, '').replace(/['’]s$/u, '');
      if (token.length < 2) return;
      const capitalised = i > 0 && /^\p{Lu}/u.test(token) && /\p{Ll}/u.test(token);
      const marked = /\d\.\d/.test(token) || /\p{L}\+\+?$/u.test(token);
      if (capitalised || marked) names.push(token);
    });
  }
  return [...new Set(names)];
}

/**
 * The names of the question that none of `blocks` mentions (case and accents aside). Given the
 * question's translation into the sources' language, only the names the translator left as written
 * count: a capitalised word it translated (`Reino Unido` → United Kingdom, `Constitución`) is a word
 * of the question's language, which the sources write in theirs, not a name they must spell alike
 * (measured on XQuAD's Spanish questions: eval/xquadAnswers.ts).
 */
export function unknownNames(question: string, blocks: readonly ContextBlock[], translation?: string): string[] {
  const haystack = foldWord(blocks.map((b) => b.text).join('\n'));
  const translated = translation === undefined ? undefined : foldWord(translation);
  return mentionedNames(question).filter((n) => {
    const name = foldWord(n);
    return (translated === undefined || holdsWord(translated, name)) && !haystack.includes(name);
  });
}

/** Whether `word` stands in `text` as a whole word: no letter or digit just before or after it. */
function holdsWord(text: string, word: string): boolean {
  const wordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!wordChar(text[at - 1]) && !wordChar(text[at + word.length])) return true;
  }
  return false;
}
