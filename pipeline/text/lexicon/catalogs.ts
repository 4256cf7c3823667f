/**
 * Spanish–English parallel text from registry packages: the Spanish message catalogs (.mo) that
 * developer tools ship — git, GCC, binutils, coreutils, make, bash, dpkg/apt, gdb and the GNU text
 * tools from Debian, Django, Sphinx and JupyterLab's language pack from PyPI. Each package is pinned
 * by version and sha256, downloaded once into .cita/cache/lexicon with the registries' own clients
 * (`apt-get download`, `pip download`), and read without installing anything.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AdmZip from 'adm-zip';
import { parseMo, type MessagePair } from './mo.ts';

export interface Source {
  registry: 'debian' | 'pypi';
  name: string;
  version: string;
  file: string;
  sha256: string;
}

// Debian 12 (bookworm) and PyPI, as served on 2026-12-02.
export const SOURCES: Source[] = [
  ['git', '1:2.39.5-0+deb12u3', 'git_1%3a2.39.5-0+deb12u3_amd64.deb', '637a85ddd6247fab13bdd0592f2f39aff04ce4dbf0655d3ab553ac359a38ce6f'],
  ['gcc-12-locales', '12.2.0-14+deb12u1', 'gcc-12-locales_12.2.0-14+deb12u1_all.deb', 'a701516b5e34086f478b0a329dfd9dd8e1695e8bac5917a6b162a87719abe28f'],
  ['binutils-common', '2.40-2', 'binutils-common_2.40-2_amd64.deb', 'ab314134f43a0891a48f69a9bc33d825da748fa5e0ba2bebb7a5c491b026f1a0'],
  ['coreutils', '9.1-1', 'coreutils_9.1-1_amd64.deb', '61038f857e346e8500adf53a2a0a20859f4d3a3b51570cc876b153a2d51a3091'],
  ['make', '4.3-4.1', 'make_4.3-4.1_amd64.deb', 'a1a83af8cbd854af887b72ad196b1f4af58387815e21ced1000253a116a46e2a'],
  ['bash', '5.2.15-2+b13', 'bash_5.2.15-2+b13_amd64.deb', '82130bb6a560cd2a7234d8018baf73f188f5dd56413d5aa0accc987b2197a6a1'],
  ['dpkg', '1.21.23', 'dpkg_1.21.23_amd64.deb', 'f89e9f8d1a4a50ade44be3ed59a6ec55460fce205d2f8520c5c492137c5b609b'],
  ['apt', '2.6.2', 'apt_2.6.2_amd64.deb', '796fc7fe18866f5b1fb27a115d7339e549d71b7ddbc15b8d6fc4226c243e96d1'],
  ['gdb', '13.1-3', 'gdb_13.1-3_amd64.deb', '65e29803ae582f0094c0412eca8032f2a5a1188664c59e14c35b9528fc81a9a5'],
  ['grep', '3.8-5', 'grep_3.8-5_amd64.deb', '3264acea728df3c48a54f20e9291b965130e306b9d00adac76647049da7196df'],
  ['sed', '4.9-1+deb12u1', 'sed_4.9-1+deb12u1_amd64.deb', 'fd557efeee8aae4619c2cb7f68aadccb804322ad4a99ab048aaae5901d253885'],
  ['tar', '1.34+dfsg-1.2+deb12u1', 'tar_1.34+dfsg-1.2+deb12u1_amd64.deb', '24fb92e98c2969171f81a8b589263d705f6b1670f95d121cd74c810d4605acc3'],
  ['diffutils', '1:3.8-4', 'diffutils_1%3a3.8-4_amd64.deb', '8bdfedc14c1035e3750e9f055ac9c1ecd9b5d05d9e6dc6466c4e9237eef407dd'],
  ['findutils', '4.9.0-4', 'findutils_4.9.0-4_amd64.deb', '5dd86bd0af4aa73f067dfd6b8339dd868f2dd84056aa79db29d1206d4fbc5e04'],
]
  .map(([name, version, file, sha256]): Source => ({ registry: 'debian', name: name!, version: version!, file: file!, sha256: sha256! }))
  .concat(
    [
      ['django', '5.2.8', 'django-5.2.8-py3-none-any.whl', '37e687f7bd73ddf043e2b6b97cfe02fcbb11f2dbb3adccc6a2b18c6daa054d7f'],
      ['sphinx', '8.2.3', 'sphinx-8.2.3-py3-none-any.whl', '4405915165f13521d875a8c29c8970800a0141c14cc5416a38feca4ea5d9b9c3'],
      ['jupyterlab-language-pack-es-ES', '4.5.post3', 'jupyterlab_language_pack_es_es-4.5.post3-py2.py3-none-any.whl', '8b315de006bc48d5798988cff6141f00694e411265011ea21570b4f459070381'],
    ].map(([name, version, file, sha256]): Source => ({ registry: 'pypi', name: name!, version: version!, file: file!, sha256: sha256! })),
  );

/** A Spanish catalog's path inside a package (`…/es/LC_MESSAGES/git.mo`, `…/es_ES/LC_MESSAGES/…`). */
const SPANISH_MO = /(?:^|\/)es(?:_ES)?\/LC_MESSAGES\/[^/]+\.mo$/;

const sha256Of = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The package file in the cache, downloaded when absent; refused when its sha256 is not the pinned one. */
function fetchSource(s: Source, cache: string, log: (m: string) => void): string {
  const file = path.join(cache, s.file);
  if (!fs.existsSync(file)) {
    log(`lexicon: downloading ${s.name} ${s.version} (${s.registry})`);
    if (s.registry === 'debian') execFileSync('apt-get', ['download', `${s.name}=${s.version}`], { cwd: cache, stdio: ['ignore', 'ignore', 'pipe'] });
    else execFileSync(process.env.CITA_PYTHON ?? 'python3', ['-m', 'pip', 'download', '--no-deps', '--quiet', '-d', cache, `${s.name}==${s.version}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  const got = sha256Of(file);
  if (got !== s.sha256) throw new Error(`lexicon: ${s.file} has sha256 ${got}, pinned ${s.sha256}; delete it to download again`);
  return file;
}

/** The Spanish catalogs of one package file, as buffers. */
function spanishCatalogs(file: string): Buffer[] {
  if (file.endsWith('.whl')) return new AdmZip(file).getEntries().filter((e) => SPANISH_MO.test(e.entryName)).map((e) => e.getData());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-lexicon-'));
  try {
    execFileSync('dpkg-deb', ['-x', file, dir]);
    const found: Buffer[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && SPANISH_MO.test(p)) found.push(fs.readFileSync(p));
      }
    };
    walk(dir);
    return found;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every (English message, Spanish translation) pair of the pinned packages (or of some of them: `sources`). */
export function catalogPairs(cache: string, log: (m: string) => void = () => {}, sources: readonly Source[] = SOURCES): MessagePair[] {
  fs.mkdirSync(cache, { recursive: true });
  return sources.flatMap((s) => spanishCatalogs(fetchSource(s, cache, log)).flatMap((b) => parseMo(b)));
}
