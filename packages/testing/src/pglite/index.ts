export { usePGlite } from './pglite-instance.js';
export type { UsePGliteOptions } from './pglite-instance.js';
