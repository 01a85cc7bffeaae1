import type { CallOptions, Transport } from '../transport/transport.js';

/** Liveness, readiness, the automation service's health and the OpenAPI document; no credentials needed. */
export function systemNamespace(transport: Transport) {
  return {
    /** `{"status": "ok"}` while the process answers (also while it shuts down): `GET /health/live`. */
    live: (options?: CallOptions) => transport.call('GET /health/live', { credential: 'none' }, options),
    /**
     * `{"status": "ready", checks}` when the storage answers, its migrations are applied and the
     * sandbox runtime answers: `GET /health/ready`. A 503 `AgentPlatformError` when a check fails
     * or the server is shutting down (its body names the check).
     */
    readiness: (options?: CallOptions) => transport.call('GET /health/ready', { credential: 'none' }, options),
    /** The same as {@link live}, under its earlier path (`GET /health`). */
    health: (options?: CallOptions) => transport.call('GET /health', { credential: 'none' }, options),
    /** The same as {@link readiness}, under its earlier path (`GET /ready`). */
    ready: (options?: CallOptions) => transport.call('GET /ready', { credential: 'none' }, options),
    /** The service's OpenAPI 3.1 document. */
    openapi: (options?: CallOptions) => transport.call('GET /openapi.json', { credential: 'none' }, options),
    /** The automation service's health: `{ status, storage, pending_runs }`; a 503 `AgentPlatformError` when storage is unreachable. */
    automationHealth: (options?: CallOptions) => transport.call('GET /api/automation/health', { credential: 'none' }, options),
  };
}
