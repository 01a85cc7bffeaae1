/**
 * `@agent-platform/http/node`: the API as a `node:http` request listener
 * ({@link createNodeHandler}), the WebSocket of live events on any `node:http` server
 * ({@link attachEventSockets}), and hardening any `node:http` server that serves the API
 * (Express, plain `http.createServer`, a fetch adapter): bounded time to receive a request,
 * and Node's own refusals answered as `{"detail": ...}`.
 * @module
 */
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from './node-handler.js';
export { attachEventSockets, EVENT_SOCKET_PATH, type EventSockets, type EventSocketsOptions } from './streaming/event-sockets.js';
export { sendNodeResponse } from './node-http/node-response.js';
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
} from './node-http/node-server.js';
export { readNodeBody, type ReadNodeBodyOptions } from './node-http/node-body.js';
export { nodeRequestHeaders } from './node-http/node-request.js';
