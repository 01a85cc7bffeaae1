/**
 * The tables the client holds as values, copied from core: the client imports only core's
 * types, so nothing of core is in its bundle, and these tests keep the copies equal.
 */
import {
  errorStatus,
  FINAL_RUN_STATUSES as CORE_FINAL_RUN_STATUSES,
  OUTBOUND_EVENT_TYPES as CORE_OUTBOUND_EVENT_TYPES,
  OUTBOUND_MESSAGE_STATUSES as CORE_OUTBOUND_MESSAGE_STATUSES,
} from '@agent-platform/core';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_BY_STATUS } from './transport/errors.js';
import { FINAL_RUN_STATUSES, OUTBOUND_EVENT_TYPES, OUTBOUND_MESSAGE_STATUSES } from './index.js';

describe('tables copied from core (the client imports only its types)', () => {
  it('are core’s errorStatus table, inverted', () => {
    expect(ERROR_CODE_BY_STATUS).toEqual(Object.fromEntries(Object.entries(errorStatus).map(([code, status]) => [status, code])));
  });

  it('the final run statuses waitForRun stops at are core’s', () => {
    expect([...FINAL_RUN_STATUSES].sort()).toEqual([...CORE_FINAL_RUN_STATUSES].sort());
  });

  it('the outbound event types and message statuses are core’s, in core’s order', () => {
    expect(OUTBOUND_EVENT_TYPES).toEqual(CORE_OUTBOUND_EVENT_TYPES);
    expect(OUTBOUND_MESSAGE_STATUSES).toEqual(CORE_OUTBOUND_MESSAGE_STATUSES);
  });
});
