/**
 * The request a piece of work is done for: its id, carried through every await of the work (an
 * `AsyncLocalStorage`), so that what the work records — an audit entry — names the request
 * without each service passing it along.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

const scope = new AsyncLocalStorage<{ requestId: string }>();

/** A request id a caller may send (`X-Request-Id`): 1–128 of letters, digits and `-_.:/`; anything else is replaced. */
const ACCEPTED_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/;

/** The caller's request id when it is one to keep, else a new one (`req_…`). */
export function requestIdFrom(given: string | undefined): string {
  return given !== undefined && ACCEPTED_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
}

/** Runs `work` as part of request `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

/** The id of the request the current work is part of, or `null` outside one (a run, a sweep). */
export const currentRequestId = (): string | null => scope.getStore()?.requestId ?? null;
