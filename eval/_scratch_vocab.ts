import Database from 'better-sqlite3';
import { loadConfig, findRoot } from '../pipeline/config/load.ts';
import { openEmbedder, resolvePaths } from '../pipeline/instance.ts';
import { foldWord } from '../pipeline/text/analysis.ts';

const root = findRoot(process.cwd());
const { config } = loadConfig('pytest', { root });
const paths = resolvePaths(config, root);
const emb = await openEmbedder(config, paths);
const db = new Database('.cita/pytest/index.sqlite', { readonly: true });
const df = new Map<string, number>();
for (const { text } of db.prepare("select text from chunks where collection='docs'").all() as { text: string }[]) {
  for (const w of new Set((text.toLowerCase().match(/\p{L}{3,}/gu) ?? []).map(foldWord))) df.set(w, (df.get(w) ?? 0) + 1);
}
const vocab = [...df].filter(([, n]) => n >= 2).map(([w]) => w);
console.error('vocab', vocab.length);
const t0 = Date.now();
const prefix = process.argv[2] ?? 'query: ';
const vecs: Float32Array[] = [];
for (let i = 0; i < vocab.length; i += 256) vecs.push(...(await emb.embedQueries(vocab.slice(i, i + 256).map((w) => prefix === 'query: ' ? w : w))));
console.error('embedded in', Date.now() - t0, 'ms');
const pairs = 'salida complementos esquema recolectar descarto omitir librería ruta hilos semilla id pasarle lanzar arrancar ajuste fallo aviso registro prueba comprobar capturar carpeta fichero guardar repetidos servidor producción despliegue variable entorno'.split(' ');
const qv = await emb.embedQueries(pairs);
for (let j = 0; j < pairs.length; j++) {
  const q = qv[j]!;
  const sims = vecs.map((v, i) => [i, v.reduce((s, x, k) => s + x * q[k]!, 0)] as const).sort((a, b) => b[1] - a[1]).slice(0, 6);
  console.log(pairs[j]!.padEnd(14), sims.map(([i, s]) => `${vocab[i]}:${s.toFixed(3)}`).join(' '));
}
await emb.close();
