/**
 * The reference server's request log: one line per request, written when it is answered (Fastify's
 * own log is two, received and completed). Reads that succeed are at debug, so a console tab
 * polling every 2 s does not drown the deliveries' and runs' lines; changes at info; refusals at
 * warn; failures at error. The path only: a query (`?session_api_key=`) never reaches the log.
 * @module
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const status = reply.statusCode;
    const path = request.url.split('?')[0] ?? '/';
    const line = { method: request.method, path, status, ms: Math.round(reply.elapsedTime) };
    if (error || status >= 500) reply.log.error({ ...line, ...(error ? { err: error } : {}) }, `${request.method} ${path} ${status}`);
    else if (status >= 400) reply.log.warn(line, `${request.method} ${path} ${status}`);
    else if (request.method === 'GET' || request.method === 'HEAD') reply.log.debug(line, `${request.method} ${path} ${status}`);
    else reply.log.info(line, `${request.method} ${path} ${status}`);
  }
}
