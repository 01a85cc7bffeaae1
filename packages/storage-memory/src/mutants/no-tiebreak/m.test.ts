import { testStorageAdapter } from '@agent-platform/testing';
import { createMemoryStorage } from './memory-storage.js';
testStorageAdapter('mutant', () => createMemoryStorage());
