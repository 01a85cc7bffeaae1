/**
 * Transactional in-memory tables, their indexes and append-only logs: generic structures that
 * know nothing of records, which `database/` builds the store's tables from.
 * @module
 */
export { AgeIndex } from './age-index.js';
export { AppendLog, type AppendLogView } from './append-log.js';
export { GroupIndex, UniqueIndex } from './hash-indexes.js';
export { instantOf, OrderedIndex, type OrderedIndexOptions } from './ordered-index.js';
export { Table, type OrderedRows, type TableView } from './table.js';
