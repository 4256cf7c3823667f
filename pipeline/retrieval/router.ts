import { COLLECTIONS, type Collection } from '../types.ts';

/**
 * The router: question → weights per collection, direct lookups (issue numbers, symbol names),
 * language, and the reasons for all of it. Transparent rules only: every weight can be traced to a
 * rule in `ROUTE_RULES` and the words of the question that made it fire.
 */

export interface Route {
  /** Relative preference per collection; max-normalised (the favoured collection has 1, see `normaliseMax`). */
  weights: Record<Collection, number>;
  /** Things to fetch directly, outside search: `lookupIssue(n)` and `lookupSymbol(name)`. */
  lookups: { issues: number[]; symbols: string[] };
  /** Bare file names the question gives (`robots.txt`, `pytest.ini`): not looked up (a file has no one definition), but names it asks about. */
  files?: string[];
  language: 'en' | 'es';
  /** One line per decision: the language and each rule that fired, with the text that fired it. */
  reasons: string[];
  top: Collection;
  /** Names of the rules that fired, in `ROUTE_RULES` order (the learned route reads them). */
  fired: string[];
  /**
   * The question is pasted text (an issue, a traceback, code) rather than a question: the names in it
   * are mentioned, not asked about, so their lookups come after the best search results, not first.
   */
  pasted: boolean;
}

/** What a rule found in the question: the text to quote, and any direct lookups it implies. */
export interface Finding {
  text: string;
  issues?: number[];
  symbols?: string[];
  files?: string[];
}

export interface RouteRule {
  name: string;
  /**
   * Multipliers for the collections the rule favours. Applied once per rule however many times it
   * matches, so a question that repeats a word does not compound its own weight.
   */
  boost: Partial<Record<Collection, number>>;
  /** A regex (each match is a finding) or a function returning the findings. */
  match: RegExp | ((question: string) => Finding[]);
}

/** Letters, digits and `_` in any script: `\b` is ASCII-only even with the `u` flag, so `qué\b` would fail. */
const W = String.raw`[\p{L}\p{N}_]`;

/**
 * Whole-word alternatives, case-insensitive, Unicode-aware. A word inside a dotted path is not a
 * word of the sentence (`Function` in `_pytest.python.Function`), so a `.` joined to a word on
 * either side is a boundary too.
 */
function words(...alternatives: string[]): RegExp {
  return new RegExp(`(?<!${W})(?<!${W}\\.)(?:${alternatives.join('|')})(?!${W})(?!\\.${W})`, 'giu');
}

// --- issue references -------------------------------------------------------------------------

/**
 * `#42`, `issue 42`, `issue #42`, `la incidencia 42`, `bug 42`, `PR 42`, `pull request 42`, `ticket 42`,
 * `gh-42`, `…/issues/42`, `…/pull/42`. A bare `#` must be followed by a digit (a Markdown heading
 * has a space, `#fff` has letters), the number may not start with 0 and must end at a word end
 * (`#1a2b3c` is a colour). `&#39;` is an HTML entity, not an issue.
 * Known gap: a colour made only of digits (`#112233`) still reads as issue 112233.
 */
const ISSUE_REF = new RegExp(
  '(?:' +
    [
      `(?<!${W})(?:issues?|incidencias?|bugs?|PRs?|pull requests?|tickets?)\\s*(?:(?:n\\.?\\s?[ºo°]|núm(?:ero)?|number|no\\.)\\s*)?#?`,
      `(?<!${W}|[&#])#`,
      `(?<!${W})gh-`,
      `/(?:issues|pull)/`,
    ].join('|') +
    `)([1-9]\\d*)(?!${W})`,
  'giu',
);

function findIssueRefs(question: string): Finding[] {
  return [...question.matchAll(ISSUE_REF)].map((m) => ({ text: m[0], issues: [Number(m[1])] }));
}

/** The issue numbers a text refers to (`#42`, `la incidencia 42`: ISSUE_REF), each once. Pure. */
export function issueRefs(text: string): number[] {
  return [...new Set(findIssueRefs(text).flatMap((f) => f.issues ?? []))];
}

/** The text with its issue references (`#42`, `la incidencia 42`: ISSUE_REF) blanked out. Pure. */
export function withoutIssueRefs(text: string): string {
  return text.replace(ISSUE_REF, ' ');
}

// --- identifiers ------------------------------------------------------------------------------

/** File extensions that make `name.ext` a file, not a dotted path (`conftest.py`, not `conftest` → `py`). */
const FILE_EXT = 'py|pyi|pyx|ts|tsx|js|mjs|cjs|jsx|go|rs|java|kt|rb|cpp|hpp|md|rst|txt|toml|cfg|ini|ya?ml|json|lock|sh';

/** Mixed-case words that are names of things, not code identifiers. */
const NOT_IDENTIFIERS = new Set(['GitHub', 'GitLab', 'JavaScript', 'TypeScript', 'PyPI', 'PyCharm', 'macOS', 'iOS', 'YouTube', 'LaTeX', 'WiFi']);

const URL = /\bhttps?:\/\/\S+/giu;
const BACKTICKS = /`([^`\n]+)`/gu;
const IDENT = /^[A-Za-z_]\w*$/;
const DOTTED = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;

/**
 * One pass over the question (URLs masked): 1 a backticked span, 2 something with a slash (a path
 * candidate), 3 a bare file name, 4 a word or dotted path, 5 an opening parenthesis right after it.
 */
const SCAN = new RegExp(
  [
    '`([^`\\n]+)`',
    '((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*)',
    `([A-Za-z0-9_-]+\\.(?:${FILE_EXT}))(?!${W})`,
    `(${W}+(?:\\.${W}+)*)(\\()?`,
  ].join('|'),
  'gu',
);

/** A path needs two slashes or a file extension: `and/or` is prose, `src/_pytest/` and `a/b.py` are paths. */
function isPath(s: string): boolean {
  return (s.match(/\//g) ?? []).length >= 2 || new RegExp(`\\.(?:${FILE_EXT})$`, 'u').test(s);
}

/** `parse_config`, `parseConfig`, `LogCaptureFixture`, `XMLParser`, `_pytest.python.Function`; not `How`, `API`, `IDs`, `e.g`. */
export function looksLikeIdentifier(token: string): boolean {
  if (DOTTED.test(token)) return token.split('.').some((part) => part.length > 1);
  if (!IDENT.test(token) || NOT_IDENTIFIERS.has(token)) return false;
  if (token.includes('_')) return /[A-Za-z]/.test(token);
  if (/^[A-Z]+s$/.test(token)) return false; // plural acronyms: APIs, IDs
  return /[a-z]/.test(token) && /[a-z][A-Z]|[A-Z]{2}[a-z]/.test(token);
}

/** What to look up for a name: the name without `()`, and for a dotted path also its last part. */
function symbolsOf(name: string): string[] {
  const bare = name.replace(/\(.*\)$/s, '').trim();
  if (!IDENT.test(bare) && !DOTTED.test(bare)) return [];
  const last = bare.split('.').pop()!;
  return last === bare ? [bare] : [bare, last];
}

const mask = (text: string, re: RegExp): string => text.replace(re, (m) => ' '.repeat(m.length));

function findIdentifiers(question: string): Finding[] {
  const found: Finding[] = [];
  for (const m of mask(question, URL).matchAll(SCAN)) {
    const [text, span, slashed, file, word, paren] = m;
    if (span !== undefined) {
      // Backticks say "this is code" whatever is inside; only a name inside is looked up.
      found.push({ text, symbols: symbolsOf(span.trim()) });
    } else if (slashed !== undefined) {
      if (isPath(slashed)) found.push({ text: slashed }); // a path is not a symbol: no lookup
    } else if (file !== undefined) {
      found.push({ text: file, files: [file] });
    } else if (word !== undefined && paren !== undefined && (IDENT.test(word) || DOTTED.test(word))) {
      found.push({ text: `${word}()`, symbols: symbolsOf(word) });
    } else if (word !== undefined && looksLikeIdentifier(word)) {
      found.push({ text: word, symbols: symbolsOf(word) });
    }
  }
  return found;
}

// --- code vocabulary --------------------------------------------------------------------------

const CODE_WORDS = words(
  'functions?',
  'class(?:es)?',
  'methods?',
  'modules?',
  'variables?',
  'attributes?',
  'decorators?',
  'fixtures?',
  'implement(?:ed|s|ation)',
  'defined',
  'source code',
  'funci[óo]n(?:es)?',
  'clases?',
  'm[ée]todos?',
  'm[óo]dulos?',
  'atributos?',
  'decorador(?:es)?',
  'implementa(?:d[oa]|ci[óo]n)?',
  'definid[oa]',
  'se define',
  'c[óo]digo fuente',
);

const KIND = '(?:function|class|method|module|fixture|decorator|attribute|variable|funci[óo]n|clase|m[ée]todo|m[óo]dulo|decorador|atributo)';
const SUBJECT = '`?([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*(?:\\(\\))?)`?';
/**
 * "what does X do / return / mean", "qué hace X": X is the subject, looked up even when it is one
 * plain word (`monkeypatch`). English needs the verb after X, or "what does the documentation say"
 * would look up `documentation`.
 */
const WHAT_DOES = [
  new RegExp(`(?<!${W})what\\s+does\\s+(?:the\\s+)?(?:${KIND}\\s+)?${SUBJECT}\\s+(?:do|return|mean)(?!${W})`, 'giu'),
  new RegExp(`(?<!${W})qu[ée]\\s+hace\\s+(?:(?:el|la|los|las)\\s+)?(?:${KIND}\\s+)?${SUBJECT}`, 'giu'),
];
/** Subjects of "what does X do" that are not names. */
const PRONOUNS = new Set(['it', 'this', 'that', 'these', 'those', 'each', 'one', 'esto', 'eso', 'este', 'esta', 'ese', 'esa', 'un', 'una']);

/** Prose with code spans and URLs blanked out: words there are code or addresses, not phrasing. */
const prose = (question: string): string => mask(mask(question, URL), BACKTICKS);

function findCodeVocabulary(question: string): Finding[] {
  const found: Finding[] = [...prose(question).matchAll(CODE_WORDS)].map((m) => ({ text: m[0] }));
  for (const m of WHAT_DOES.flatMap((re) => [...question.matchAll(re)])) {
    const subject = m[1]!;
    const symbols = PRONOUNS.has(subject.toLowerCase()) ? [] : symbolsOf(subject);
    found.push({ text: m[0], symbols });
  }
  return found;
}

/** A rule that looks for phrases in the prose of the question only. */
const phrases =
  (...res: RegExp[]) =>
  (question: string): Finding[] =>
    res.flatMap((re) => [...prose(question).matchAll(re)].map((m) => ({ text: m[0] })));

// --- phrasing ---------------------------------------------------------------------------------

const HOW_TO = words(
  'how\\s+(?:do|can|should|would|could)\\s+(?:i|we|you|one)',
  'how\\s+to',
  'how\\s+can',
  'configur(?:e|es|ed|ing|ation)',
  'install(?:s|ed|ing|ation)?',
  'examples?',
  'usage',
  'what\\s+(?:is|are)',
  'explain(?:s|ed)?',
  'tutorials?',
  'guides?',
  'documentation',
  'best\\s+practices?',
  'c[óo]mo\\s+(?:hago|puedo|se)',
  'cómo',
  '¿\\s*como',
  'configurar',
  'instalar',
  'ejemplos?',
  'qu[ée]\\s+(?:es|son)',
  'expl[íi]ca(?:me|r)?',
  'gu[íi]as?',
  'documentaci[óo]n',
  'uso',
  // Questions about using the project, in generic question forms (none names a project's feature):
  // possibility, obligation, comparison, reasons, meaning and consequences.
  'is\\s+(?:there|it)\\s+(?:a|any)\\s+way',
  'is\\s+it\\s+possible',
  'can\\s+(?:i|we|you|one)',
  'should\\s+(?:i|we|you)',
  'do\\s+(?:i|we|you)\\s+(?:need|have)\\s+to',
  'difference\\s+between',
  'differences?',
  'why\\s+(?:does|do|is|are|did|would|should)',
  'what\\s+happens',
  'what\\s+does\\s+it\\s+mean',
  'hay\\s+(?:alguna\\s+)?(?:forma|manera|opci[óo]n)',
  'se\\s+puede',
  'puedo',
  'debo',
  'tengo\\s+que',
  'hace\\s+falta',
  'diferencias?',
  'por\\s+qu[ée]',
  'para\\s+qu[ée]\\s+sirve',
  'qu[ée]\\s+significa',
  'qu[ée]\\s+pasa',
  'quiero',
);

/** "Where is the bug", "which files must change", "dónde se define": the answer is a place in the code. */
const WHERE = words(
  'where\\s+(?:is|are|was)\\s+(?:the\\s+)?(?:bug|fix|code|error|problem|defect)',
  'where\\s+(?:is|are|was)\\s+[\\w.]+\\s+(?:defined|implemented|handled|raised|fixed|called)',
  'which\\s+(?:files?|modules?)',
  'what\\s+files?',
  'd[óo]nde\\s+(?:est[áa]|se\\s+encuentra)\\s+(?:el|la)\\s+(?:bug|fallo|error|problema|c[óo]digo|defecto)',
  'd[óo]nde\\s+se\\s+(?:define|implementa|corrige|arregla|lanza|llama)',
  'qu[ée]\\s+(?:ficheros?|archivos?|m[óo]dulos?)',
  'en\\s+qu[ée]\\s+(?:fichero|archivo|m[óo]dulo)',
);

const ERROR_WORDS = words(
  'errors?',
  'traceback',
  'exceptions?',
  'bugs?',
  'fail(?:s|ed|ing|ures?)?',
  'crash(?:es|ed|ing)?',
  'regressions?',
  'broken',
  'fallos?',
  'falla(?:n|r)?',
  'excepci[óo]n(?:es)?',
  'errores',
  'no funciona',
);
/** `ValueError`, `OutcomeException`: case-sensitive, so it cannot live in the case-insensitive list above. */
const EXCEPTION_CLASS = new RegExp(`(?<!${W})[A-Z]\\w*(?:Error|Exception)(?!${W})`, 'gu');

// --- the table --------------------------------------------------------------------------------

/**
 * The rules, in the order their reasons are listed. Multipliers are priors, not verdicts: fusion
 * still measures how well each collection fits, so a rule only shifts slots among collections that
 * have something relevant. Tuning belongs to `cita eval --vs`.
 */
export const ROUTE_RULES: readonly RouteRule[] = [
  { name: 'issue reference', boost: { issues: 3 }, match: findIssueRefs },
  { name: 'identifier', boost: { code: 3 }, match: findIdentifiers },
  { name: 'code vocabulary', boost: { code: 2 }, match: findCodeVocabulary },
  { name: 'how-to phrasing', boost: { docs: 3 }, match: phrases(HOW_TO) },
  { name: 'where phrasing', boost: { code: 3 }, match: phrases(WHERE) },
  { name: 'error phrasing', boost: { issues: 1.5, code: 1.5 }, match: phrases(ERROR_WORDS, EXCEPTION_CLASS) },
];

// --- language ---------------------------------------------------------------------------------

/** Common Spanish function words, rare as English words. */
const SPANISH_FUNCTION_WORDS = [
  'el', 'la', 'los', 'las', 'del', 'al', 'de', 'un', 'una', 'y', 'qué', 'que', 'cómo', 'como', 'dónde', 'donde',
  'por', 'para', 'es', 'está', 'esta', 'hay', 'en', 'con', 'se', 'lo', 'su', 'sus',
];
/**
 * Spanish words the rules above already know, written without accents as people often type them:
 * `la incidencia 42 sigue abierta` has one function word, and `incidencia` makes it two.
 */
const SPANISH_VOCABULARY = [
  'incidencia', 'incidencias', 'funcion', 'funciones', 'clase', 'clases', 'metodo', 'metodos', 'modulo', 'modulos',
  'atributo', 'atributos', 'decorador', 'decoradores', 'configurar', 'instalar', 'ejemplo', 'ejemplos', 'guia',
  'documentacion', 'uso', 'fallo', 'fallos', 'falla', 'fallan', 'excepcion', 'errores', 'hace', 'prueba', 'pruebas',
  // Common in questions and no English word: `puedo usar pytest con unittest?` has one function word.
  'puedo', 'puede', 'pueden', 'quiero', 'tengo', 'necesito', 'hago', 'hacer', 'usar', 'ejecutar', 'cambiar', 'sirve',
  'funciona', 'pero', 'cada', 'mismo', 'desde', 'tambien', 'este', 'esto', 'estos', 'nada', 'algo', 'siempre', 'nunca', 'muy',
];
/**
 * Interrogatives only Spanish has, accents or not: a question that opens with one is Spanish
 * however short (`como instalo pytest`, `Donde pongo conftest.py?`).
 */
const SPANISH_OPENERS = new Set([
  'como', 'cómo', 'donde', 'dónde', 'adonde', 'adónde', 'cuando', 'cuándo', 'cual', 'cuál', 'cuales', 'cuáles',
  'quien', 'quién', 'quienes', 'quiénes', 'cuanto', 'cuánto', 'cuanta', 'cuánta', 'cuantos', 'cuántos', 'cuantas', 'cuántas',
  'que', 'qué', 'porque',
]);
const SPANISH_WORDS = new Set([...SPANISH_FUNCTION_WORDS, ...SPANISH_VOCABULARY]);
const SPANISH_LETTERS = /[áéíóúñü]/iu;

/**
 * Spanish if the question has `¿` or `¡`, a letter typical of Spanish (á é í ó ú ñ ü), opens with
 * an interrogative only Spanish has, or holds two different Spanish words (function words, or the
 * rules' own Spanish vocabulary); otherwise English. Code spans and URLs are ignored (`en` in a URL path, `es` as a variable name).
 * Known gap: an English question with a borrowed word (`café`) reads as Spanish.
 */
export function detectLanguage(question: string): { language: 'en' | 'es'; reason: string } {
  const text = prose(question.normalize('NFC'));
  const mark = text.match(/[¿¡]/u);
  if (mark) return { language: 'es', reason: `language es: "${mark[0]}"` };
  const letter = text.match(SPANISH_LETTERS);
  if (letter) return { language: 'es', reason: `language es: letter "${letter[0]}"` };
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const fn = [...new Set(words.filter((w) => SPANISH_WORDS.has(w)))];
  if (fn.length >= 2) return { language: 'es', reason: `language es: words ${fn.map((w) => `"${w}"`).join(', ')}` };
  if (words[0] !== undefined && SPANISH_OPENERS.has(words[0])) return { language: 'es', reason: `language es: opens with "${words[0]}"` };
  return { language: 'en', reason: 'language en: no Spanish marks, letters or words' };
}

// --- pasted text ------------------------------------------------------------------------------

/** A code fence, a traceback, pytest's `E   ` failure lines or an indented code line. */
const PASTED_MARKS = /```|~~~|Traceback \(most recent call last\)|^E {3}\S|^(?: {4}|\t)\S/m;
/** Longer than any question people type: an issue body or a log. */
const PASTED_LENGTH = 600;

/** Pasted text (an issue, a traceback, code) rather than a typed question; why, or undefined. */
export function pastedReason(question: string): string | undefined {
  if (question.length > PASTED_LENGTH) return `pasted text: ${question.length} characters`;
  const mark = PASTED_MARKS.exec(question);
  return mark ? `pasted text: ${JSON.stringify(mark[0].trim() || 'indented code')}` : undefined;
}

// --- route ------------------------------------------------------------------------------------

/**
 * Max-normalisation: the favoured collection gets 1 and the others their ratio to it. Chosen over
 * sum = 1 so a weight reads the same whatever the number of collections, and so that in fusion the
 * favoured collection's `fit × weight` is its measured fit.
 */
function normaliseMax(weights: Record<Collection, number>): Record<Collection, number> {
  const max = Math.max(...COLLECTIONS.map((c) => weights[c]));
  return Object.fromEntries(COLLECTIONS.map((c) => [c, weights[c] / max])) as Record<Collection, number>;
}

/**
 * Ties for `top` go to issues, then code, then docs: a tie means two specific signals fired, and the
 * more specific reference (a number names one thing, an identifier one name) wins. When no rule
 * fires, top is docs: a question we cannot classify is most often about using the project.
 */
const TIE_ORDER: readonly Collection[] = ['issues', 'code', 'docs'];

/** Every match of `re` (made global if it is not: `matchAll` demands it). */
function regexFindings(re: RegExp, question: string): Finding[] {
  const global = re.global ? re : new RegExp(re.source, `${re.flags}g`);
  return [...question.matchAll(global)].map((m) => ({ text: m[0] }));
}

const fmt = (n: number): string => String(Number(n.toFixed(3)));

/** Routes a question with `rules` (default `ROUTE_RULES`); pure: same question, same route. */
export function route(question: string, rules: readonly RouteRule[] = ROUTE_RULES): Route {
  const q = question.normalize('NFC');
  const language = detectLanguage(q);
  const reasons = [language.reason];
  const raw = Object.fromEntries(COLLECTIONS.map((c) => [c, 1])) as Record<Collection, number>;
  const issues: number[] = [];
  const symbols: string[] = [];
  const files: string[] = [];
  const fired: string[] = [];

  for (const rule of rules) {
    for (const [c, b] of Object.entries(rule.boost)) {
      if (!(Number.isFinite(b) && b > 0)) {
        throw new Error(`route: rule ${JSON.stringify(rule.name)} boosts ${c} by ${b}; a boost must be a finite number above 0`);
      }
    }
    const findings = typeof rule.match === 'function' ? rule.match(q) : regexFindings(rule.match, q);
    if (findings.length === 0) continue;
    fired.push(rule.name);
    const boosts = COLLECTIONS.filter((c) => rule.boost[c] !== undefined).map((c) => {
      raw[c] *= rule.boost[c]!;
      return `${c} ×${fmt(rule.boost[c]!)}`;
    });
    const ruleIssues = [...new Set(findings.flatMap((f) => f.issues ?? []))];
    const ruleSymbols = [...new Set(findings.flatMap((f) => f.symbols ?? []))];
    issues.push(...ruleIssues);
    symbols.push(...ruleSymbols);
    files.push(...findings.flatMap((f) => f.files ?? []));
    const lookups = [...ruleIssues.map((n) => `#${n}`), ...ruleSymbols];
    const quoted = [...new Set(findings.map((f) => JSON.stringify(f.text)))].join(', ');
    reasons.push(`${rule.name} ${quoted} → ${boosts.join(', ')}${lookups.length > 0 ? `, lookup ${lookups.join(', ')}` : ''}`);
  }

  const weights = normaliseMax(raw);
  const top = fired.length === 0 ? 'docs' : TIE_ORDER.reduce((best, c) => (weights[c] > weights[best] ? c : best));
  if (fired.length === 0) reasons.push('no rule fired → equal weights, top docs');
  const pasted = pastedReason(q);
  if (pasted && symbols.length > 0) reasons.push(`${pasted} → the names it mentions are looked up after the best search results`);
  return {
    weights,
    lookups: { issues: [...new Set(issues)], symbols: [...new Set(symbols)] },
    ...(files.length > 0 ? { files: [...new Set(files)] } : {}),
    language: language.language,
    reasons,
    top,
    fired,
    pasted: pasted !== undefined,
  };
}
