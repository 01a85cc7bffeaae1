/**
 * `@agent-platform/http/node`: hardening any `node:http` server that serves the API (Express,
 * plain `http.createServer`, a fetch adapter): bounded time to receive a request, and Node's
 * own refusals answered as `{"detail": ...}`.
 * @module
 */
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  clientErrorAnswer,
  handleClientError,
  hardenNodeServer,
  refuseConnect,
  refuseConnectRequests,
  resolveServerLimits,
  type ResolvedServerLimits,
  type ServerLimits,
} from './node-server.js';
export { readNodeBody, type ReadNodeBodyOptions } from './node-body.js';
export { nodeRequestHeaders } from './node-request.js';
