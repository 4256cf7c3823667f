/**
 * Cosine similarity in double precision, always summed in the same order (the same vectors give the
 * same score, bit for bit: the Elasticsearch store's exact kNN scores rely on it); 0 when either
 * vector is zero.
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** The normalised mean of unit vectors (one vector is returned as is). */
export function meanVector(vectors: Float32Array[]): Float32Array {
  if (vectors.length === 1) return vectors[0]!;
  const out = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}
