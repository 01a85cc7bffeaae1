import type { ConsoleAsset } from './assets.js';

/** Where the package build writes the console's files, beside `dist/index.js`. */
export const ASSETS_DIR = 'console';

/** The file in {@link ASSETS_DIR} listing the others, with their content types and ETags. */
export const MANIFEST = 'manifest.json';

/** One file's entry in {@link MANIFEST}; its gzipped body, if any, is beside it with `.gz` added. */
export type ManifestEntry = Omit<ConsoleAsset, 'body' | 'gzip'> & { gzip: boolean };

export const GZIP_SUFFIX = '.gz';
