/**
 * `@agent-platform/storage-memory`: the in-memory `StorageAdapter`.
 * @module
 */
export { DEFAULT_MAX_DELIVERIES, DEFAULT_MAX_DELIVERIES_PER_ORG, DRIVER_NAME, createMemoryStorage } from './memory-storage.js';
export type { MemoryStorageOptions, MemoryStorageSeed } from './memory-storage.js';
