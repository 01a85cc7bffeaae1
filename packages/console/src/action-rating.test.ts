/** The action rating the console shows (app/action-rating.ts): the analyzer's risk and reason, nothing for unrated actions. */
import type { ConversationEvent } from '@agent-platform/client';
import { describe, expect, it } from 'vitest';
import { ratingOf } from '../app/action-rating.js';

const event = (kind: string, data: Record<string, unknown> | null): ConversationEvent =>
  ({ id: 'e1', seq: 1, kind, source: 'agent', message: null, data, created_at: '2026-01-01T00:00:00Z' }) as unknown as ConversationEvent;

describe('an action’s rating in the console', () => {
  it('is the risk and reason of a rated action', () => {
    expect(ratingOf(event('ActionEvent', { security_risk: 'HIGH', security_risk_reason: 'force push to main' }))).toEqual({
      risk: 'HIGH',
      reason: 'force push to main',
    });
    expect(ratingOf(event('ActionEvent', { security_risk: 'UNKNOWN', security_risk_reason: 'the model gave no rating' }))).toEqual({
      risk: 'UNKNOWN',
      reason: 'the model gave no rating',
    });
  });

  it('is nothing for an action no analyzer rated, or another event', () => {
    expect(ratingOf(event('ActionEvent', { security_risk: 'UNKNOWN' }))).toBeNull();
    expect(ratingOf(event('ObservationEvent', { security_risk: 'HIGH' }))).toBeNull();
    expect(ratingOf(null)).toBeNull();
  });
});
