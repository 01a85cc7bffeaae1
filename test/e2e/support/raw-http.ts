/**
 * Raw HTTP/1.1 over a socket for end-to-end tests: the HTTP package's own test helpers, shared
 * rather than written twice.
 * @module
 */
export { neverEndingBody, rawExchange, rawRequest, type RawAnswer, type RawExchange } from '../../../packages/http/test-support/raw-http.js';
