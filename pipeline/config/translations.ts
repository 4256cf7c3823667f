/**
 * Translated doc trees (`docs/<lang>/…`, `i18n/<lang>/…`, `locales/<lang>/…`, `docs/zh-CN/` beside
 * `docs/*.md`): which folders hold one language each, and which of them to leave out so that a
 * repository's docs are indexed in one language, not in every translation of it. Pure functions over
 * the folder counts a survey collects.
 */

/** Folders whose language children are translations by their name alone (one child is enough). */
const TRANSLATION_PARENTS = new Set(['i18n', 'l10n', 'locale', 'locales', 'translations', 'translation', 'lang', 'langs', 'languages']);
const DOC_PARENTS = new Set(['doc', 'docs', 'documentation', 'website', 'guide', 'guides']);

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/**
 * The language a folder name stands for (`en`, `zh-CN`, `pt_BR`, `zh-hant`), or undefined. Only
 * two-letter primary tags: three-letter names (`src`, `lib`, `min`) are too often something else.
 */
export function languageOf(name: string): string | undefined {
  if (!/^[a-z]{2}(?:[-_][a-z0-9]{2,8})*$/i.test(name)) return undefined;
  let tag: string;
  try {
    tag = Intl.getCanonicalLocales(name.replace(/_/g, '-'))[0]!;
  } catch {
    return undefined;
  }
  return languageNames.of(tag.split('-')[0]!) ? tag : undefined;
}

/** The primary language subtag, lowercase: `zh-Hant` → `zh`. */
const primary = (tag: string) => tag.split('-')[0]!.toLowerCase();

/** What a survey knows of one folder. */
export interface FolderCount {
  /** Path relative to the checkout, `/`-separated. */
  dir: string;
  /** Doc files anywhere under it. */
  docFiles: number;
  /** Doc files directly in it. */
  ownDocFiles: number;
}

export interface TranslationSet {
  /** The folder holding one folder per language, e.g. `docs`, `website/i18n`. */
  parent: string;
  languages: { tag: string; dir: string; docFiles: number }[];
  /** The parent is named for translations (`i18n`, `locales`): the source docs live elsewhere. */
  apart: boolean;
  /** Doc files directly in the parent (the source, when translations sit beside it: `docs/*.md` + `docs/zh-CN/`, as many). */
  ownDocFiles: number;
}

/**
 * Folders with language-named children that hold docs: two or more such children anywhere (up to
 * `maxDepth`), or one under a folder named for docs or translations. Sets inside another set's
 * language folder are left out (the outer one decides).
 */
export function findTranslationSets(folders: readonly FolderCount[], maxDepth = 3): TranslationSet[] {
  const byDir = new Map(folders.map((f) => [f.dir, f]));
  const children = new Map<string, FolderCount[]>();
  for (const f of folders) {
    const slash = f.dir.lastIndexOf('/');
    const parent = slash < 0 ? '' : f.dir.slice(0, slash);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(f);
  }
  const sets: TranslationSet[] = [];
  for (const [parent, kids] of [...children].sort(([a], [b]) => a.localeCompare(b))) {
    if (parent.split('/').length > maxDepth) continue;
    const langs = kids
      .map((k) => ({ tag: languageOf(k.dir.slice(k.dir.lastIndexOf('/') + 1)), dir: k.dir, docFiles: k.docFiles }))
      .filter((l): l is { tag: string; dir: string; docFiles: number } => l.tag !== undefined && l.docFiles > 0)
      .sort((a, b) => a.dir.localeCompare(b.dir));
    const name = parent.slice(parent.lastIndexOf('/') + 1).toLowerCase();
    const apart = TRANSLATION_PARENTS.has(name);
    if (langs.length === 0 || (langs.length < 2 && !apart && !DOC_PARENTS.has(name))) continue;
    if (sets.some((s) => s.languages.some((l) => parent === l.dir || parent.startsWith(`${l.dir}/`)))) continue;
    sets.push({ parent, languages: langs, apart, ownDocFiles: byDir.get(parent)?.ownDocFiles ?? 0 });
  }
  return sets;
}

export interface LanguageChoice {
  /** The set's language folders left out of the docs, as gitignore patterns (`docs/de/**`). */
  exclude: string[];
  /** Doc files in them. */
  excludedFiles: number;
  /** The folder kept for the source language, if the set has one. */
  kept?: string;
  /** One line for the user: what was found and what was done. */
  note: string;
}

/**
 * Keeps the source language's folder and excludes the other translations. With no folder for the
 * source language: translations kept apart (`i18n/`) or beside the source docs (`docs/*.md`) are all
 * excluded; otherwise (`docs/de`, `docs/fr` and nothing else) nothing is, and the note says so.
 */
export function chooseLanguage(set: TranslationSet, source: string): LanguageChoice {
  const exact = set.languages.find((l) => l.tag.toLowerCase() === source.toLowerCase());
  const kept = exact ?? set.languages.find((l) => primary(l.tag) === primary(source) && l.tag.length === primary(source).length) ??
    set.languages.find((l) => primary(l.tag) === primary(source));
  const where = set.parent || '(the root)';
  const found = set.languages.map((l) => `${l.tag} ${l.docFiles}`).join(', ');
  const head = `${where}: ${set.languages.length} language folder${set.languages.length === 1 ? '' : 's'} (${found})`;
  // Docs directly in the parent are the source only if they are about as many as a translation's (one stray README is not).
  const beside = set.ownDocFiles * 2 >= Math.max(...set.languages.map((l) => l.docFiles));
  if (!kept && !set.apart && !beside) {
    return { exclude: [], excludedFiles: 0, note: `${head}; none is ${source}, so all are kept (pass --language <code> to keep one)` };
  }
  const others = set.languages.filter((l) => l !== kept);
  const excludedFiles = others.reduce((n, l) => n + l.docFiles, 0);
  const exclude = others.map((l) => `${l.dir}/**`);
  const keptText = kept ? `keeping ${kept.dir} (${source})` : `keeping the ${source} docs outside them`;
  const dropped = others.length ? `; excluding ${others.length} translation${others.length === 1 ? '' : 's'} (${excludedFiles.toLocaleString('en-US')} doc files)` : '';
  return { exclude, excludedFiles, kept: kept?.dir, note: `${head}; ${keptText}${dropped}` };
}
