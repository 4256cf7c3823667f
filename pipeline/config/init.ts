import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { UserError } from '../errors.ts';
import { CODE_FORMATS, DOC_FORMATS } from '../sources/classify.ts';
import { isFilesystemRoot } from './load.ts';
import { chooseLanguage, findTranslationSets, type FolderCount, type LanguageChoice, type TranslationSet } from './translations.ts';

/** What `cita init` found in a checkout, and the instance config it proposes. */
export interface Survey {
  name: string;
  languages: Record<string, number>;
  docFolders: string[];
  github?: string;
  ref?: string;
  /** Folders holding one language of the docs each (`docs/<lang>/`, `i18n/<lang>/`). */
  translations: TranslationSet[];
}

const DOC_DIR_NAMES = new Set(['doc', 'docs', 'documentation', 'website', 'guide', 'guides']);
const SKIP_DIRS = new Set(['.git', 'node_modules', 'vendor', 'third_party', 'dist', 'build', '__pycache__', '.venv', 'venv', 'target']);

/** Parses `owner/name` out of a GitHub remote URL (https or ssh). */
export function githubFromRemote(url: string): string | undefined {
  const m = /github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m ? `${m[1]}/${m[2]}` : undefined;
}

function readGit(checkout: string): { github?: string; ref?: string } {
  const gitDir = path.join(checkout, '.git');
  const out: { github?: string; ref?: string } = {};
  try {
    const config = fs.readFileSync(path.join(gitDir, 'config'), 'utf8');
    for (const m of config.matchAll(/^\s*url\s*=\s*(.+)$/gm)) {
      out.github ??= githubFromRemote(m[1]!);
    }
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    out.ref = head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : head;
  } catch {
    // Not a git checkout, or no remote: the user fills these in.
  }
  return out;
}

/** Entries looked at before the survey gives up: a checkout is far smaller (the index scan has sources.maxFiles). */
export const SURVEY_MAX_ENTRIES = 200_000;

export function surveyCheckout(checkout: string, maxEntries = SURVEY_MAX_ENTRIES): Survey {
  // A wrong folder (`cita init /`, a home directory) would otherwise be walked whole before a word.
  if (isFilesystemRoot(checkout)) throw new UserError(`${checkout} is the filesystem root, not a repository checkout`);
  const languages: Record<string, number> = {};
  const docFolders = new Set<string>();
  const folders: FolderCount[] = [];
  let seen = 0;
  /** Returns the doc files under `dir`. */
  const walk = (dir: string, rel: string, depth: number): number => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return 0; // an unreadable folder is not the repository's
    }
    let docFiles = 0;
    let ownDocFiles = 0;
    for (const e of entries) {
      if (++seen > maxEntries) throw new UserError(`${checkout}: more than ${maxEntries} files and folders, so this is not one repository checkout; point cita init at the repository's folder`);
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || e.name.startsWith('.')) continue;
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (depth < 2 && DOC_DIR_NAMES.has(e.name.toLowerCase())) docFolders.add(r);
        docFiles += walk(path.join(dir, e.name), r, depth + 1);
      } else if (e.isFile()) {
        const ext = path.extname(e.name).toLowerCase();
        const lang = CODE_FORMATS[ext] ?? (DOC_FORMATS[ext] ? `docs:${DOC_FORMATS[ext]}` : undefined);
        if (lang) languages[lang] = (languages[lang] ?? 0) + 1;
        if (DOC_FORMATS[ext]) ownDocFiles++;
      }
    }
    docFiles += ownDocFiles;
    if (rel) folders.push({ dir: rel, docFiles, ownDocFiles });
    return docFiles;
  };
  const rootDocs = walk(checkout, '', 0);
  folders.push({ dir: '', docFiles: rootDocs, ownDocFiles: 0 });
  const name = path
    .basename(path.resolve(checkout))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return { name: name || 'repo', languages, docFolders: [...docFolders].sort(), translations: findTranslationSets(folders), ...readGit(checkout) };
}

/** What to do with each translated doc tree when the docs' source language is `source`. */
export function chooseLanguages(survey: Survey, source: string): LanguageChoice[] {
  return survey.translations.map((t) => chooseLanguage(t, source));
}

/** The starting instance config for a survey, as YAML with comments a user can edit. */
export function proposeConfig(survey: Survey, checkoutPath: string, source = 'en'): string {
  const codeExts = Object.entries(CODE_FORMATS)
    .filter(([, lang]) => survey.languages[lang])
    .map(([ext]) => `**/*${ext}`);
  const docExts = Object.entries(DOC_FORMATS)
    .filter(([, f]) => survey.languages[`docs:${f}`])
    .map(([ext]) => ext);
  const docsInclude = survey.docFolders.length
    ? survey.docFolders.flatMap((d) => docExts.map((ext) => `${d}/**/*${ext}`)).concat(docExts.map((ext) => `/*${ext}`))
    : docExts.map((ext) => `**/*${ext}`);
  const choices = chooseLanguages(survey, source);
  const excluded = choices.flatMap((c) => c.exclude);
  const config: Record<string, unknown> = {
    name: survey.name,
    repository: {
      path: checkoutPath,
      ...(survey.github ? { github: survey.github } : {}),
      ref: survey.ref ?? 'main',
    },
    sources: {
      ...(docsInclude.length ? { docs: { include: docsInclude, exclude: excluded } } : {}),
      ...(codeExts.length ? { code: { include: codeExts, exclude: [] } } : {}),
    },
  };
  const found = Object.entries(survey.languages)
    .sort((a, b) => b[1] - a[1])
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
  // languages.corpus knows en and es; the folder choice works for any language.
  if (source !== 'en' && /^es\b/i.test(source)) config.languages = { corpus: 'es' };
  const translations = choices.map((c) => `# Translations: ${c.note}.\n`).join('');
  const hint = excluded.length ? `# (sources.docs.exclude below; \`cita init --language <code>\` picks another source language)\n` : '';
  return `# Written by \`cita init\`. Found: ${found || 'no known files'}.\n${translations}${hint}# Defaults (model, chunking, store) come from config/defaults.yaml; override any key here.\n${YAML.stringify(config)}`;
}
