/**
 * The client's operation table against the server's route table: every endpoint the server
 * serves is reachable from the client at the same method and path, and the client calls nothing
 * the server does not serve.
 */
import { createHttpHandler } from '@agent-platform/http';
import { createAesGcmSecretBox, createAgentPlatform, errorStatus, FINAL_RUN_STATUSES as CORE_FINAL_RUN_STATUSES, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_BY_STATUS } from './errors.js';
import { FINAL_RUN_STATUSES, operations } from './index.js';

const platform = createAgentPlatform({
  storage: createMemoryStorage(),
  secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
  publicUrl: 'http://localhost',
});
const serverRoutes = createHttpHandler(platform).routes.map((route) => ({ operationId: route.operationId, method: route.method, path: route.path }));

describe('the operation table', () => {
  it('has every server route, at the same method and path', () => {
    const clientRoutes = Object.entries(operations).map(([operationId, spec]) => ({ operationId, method: spec.method, path: spec.path }));
    const byId = (a: { operationId: string }, b: { operationId: string }) => a.operationId.localeCompare(b.operationId);
    expect(clientRoutes.sort(byId)).toEqual([...serverRoutes].sort(byId));
  });

  it('sends no credential to the routes that need none, and one to every other', () => {
    const open = new Set(createHttpHandler(platform).routes.filter((route) => route.auth === false).map((route) => route.operationId));
    open.add('openapi');
    for (const [operationId, spec] of Object.entries(operations)) {
      expect(spec.auth === 'none', operationId).toBe(open.has(operationId));
    }
  });
});

describe('tables copied from core (the client imports only its types)', () => {
  it('are core’s errorStatus table, inverted', () => {
    expect(ERROR_CODE_BY_STATUS).toEqual(Object.fromEntries(Object.entries(errorStatus).map(([code, status]) => [status, code])));
  });

  it('the final run statuses waitForRun stops at are core’s', () => {
    expect([...FINAL_RUN_STATUSES].sort()).toEqual([...CORE_FINAL_RUN_STATUSES].sort());
  });
});
