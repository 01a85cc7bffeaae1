import type { CallOptions, Transport } from '../transport/transport.js';

/** Liveness, readiness, the automation service's health and the OpenAPI document; no credentials needed. */
export function systemNamespace(transport: Transport) {
  return {
    /** `{"status": "ok"}` while the process answers. */
    health: (options?: CallOptions) => transport.call('GET /health', { credential: 'none' }, options),
    /** `{"status": "ready"}` when storage is reachable; a 503 `AgentPlatformError` when not. */
    ready: (options?: CallOptions) => transport.call('GET /ready', { credential: 'none' }, options),
    /** The service's OpenAPI 3.1 document. */
    openapi: (options?: CallOptions) => transport.call('GET /openapi.json', { credential: 'none' }, options),
    /** The automation service's health: `{ status, storage, pending_runs }`; a 503 `AgentPlatformError` when storage is unreachable. */
    automationHealth: (options?: CallOptions) => transport.call('GET /api/automation/health', { credential: 'none' }, options),
  };
}
