/**
 * The one table the client holds as a copy of core's (its error codes by status, inverted), kept
 * equal by a test; and the lists of names it re-exports, which are core's own values, not copies.
 */
import {
  errorStatus,
  FINAL_RUN_STATUSES as CORE_FINAL_RUN_STATUSES,
  OUTBOUND_EVENT_TYPES as CORE_OUTBOUND_EVENT_TYPES,
  OUTBOUND_MESSAGE_STATUSES as CORE_OUTBOUND_MESSAGE_STATUSES,
  SIGNATURE_SCHEMES as CORE_SIGNATURE_SCHEMES,
} from '@agent-platform/core';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_BY_STATUS } from './transport/errors.js';
import { FINAL_RUN_STATUSES, OUTBOUND_EVENT_TYPES, OUTBOUND_MESSAGE_STATUSES, SIGNATURE_SCHEMES } from './index.js';

describe('tables the client takes from core', () => {
  it('are core’s errorStatus table, inverted', () => {
    expect(ERROR_CODE_BY_STATUS).toEqual(Object.fromEntries(Object.entries(errorStatus).map(([code, status]) => [status, code])));
  });

  it('re-exports core’s lists of names themselves', () => {
    expect(FINAL_RUN_STATUSES).toBe(CORE_FINAL_RUN_STATUSES);
    expect(OUTBOUND_EVENT_TYPES).toBe(CORE_OUTBOUND_EVENT_TYPES);
    expect(OUTBOUND_MESSAGE_STATUSES).toBe(CORE_OUTBOUND_MESSAGE_STATUSES);
    expect(SIGNATURE_SCHEMES).toBe(CORE_SIGNATURE_SCHEMES);
    expect(SIGNATURE_SCHEMES).toContain('linear');
  });
});
