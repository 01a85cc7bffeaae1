import type { CallOptions, Transport } from '../transport.js';
import type { ServiceStatus } from '../types.js';

/** Liveness, readiness and the OpenAPI document; no credentials needed. */
export function systemNamespace(transport: Transport) {
  return {
    /** `{"status": "ok"}` while the process answers. */
    health: (options?: CallOptions) => transport.call<ServiceStatus>('health', {}, options),
    /** `{"status": "ready"}` when storage is reachable; a 503 `AgentPlatformError` when not. */
    ready: (options?: CallOptions) => transport.call<ServiceStatus>('ready', {}, options),
    /** The service's OpenAPI 3.1 document. */
    openapi: (options?: CallOptions) => transport.call<Record<string, unknown>>('openapi', {}, options),
  };
}
