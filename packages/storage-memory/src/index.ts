/**
 * `@agent-platform/storage-memory`: the in-memory `StorageAdapter`.
 * @module
 */
export { DRIVER_NAME, createMemoryStorage } from './memory-storage.js';
export type { MemoryStorageOptions, MemoryStorageSeed } from './memory-storage.js';
