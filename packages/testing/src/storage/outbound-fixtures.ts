/**
 * Record builders for the outbound suites: a subscription, and a pending message due at once.
 * Fresh ids, like every builder in `fixtures.ts`, so tests can share one backend.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { OutboundMessageRecord, SubscriptionRecord } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures.js';

/** An enabled subscription to run outcomes, its secret sealed. */
export function makeSubscriptionRecord(overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id: uniqueId('sub'),
    org_id: uniqueId('org'),
    url: 'https://hooks.example.com/agent-platform',
    event_types: ['run.completed', 'run.failed'],
    description: null,
    enabled: true,
    disabled_reason: null,
    consecutive_failures: 0,
    failing_since: null,
    last_success_at: null,
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    secret_encrypted: `sealed:v1:whsec:${randomBytes(6).toString('hex')}`,
    ...overrides,
  };
}

/** A pending `run.completed` message not yet tried, due at its creation, held by nobody. */
export function makeOutboundMessageRecord(overrides: Partial<OutboundMessageRecord> = {}): OutboundMessageRecord {
  return {
    id: uniqueId('msg'),
    org_id: uniqueId('org'),
    subscription_id: uniqueId('sub'),
    event_type: 'run.completed',
    payload: { type: 'run.completed', timestamp: fixtureTime(0), data: { id: uniqueId('run'), status: 'COMPLETED' } },
    status: 'pending',
    attempt: 0,
    next_attempt_at: fixtureTime(0),
    detail: null,
    attempts: [],
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    lease_owner: null,
    lease_expires_at: null,
    ...overrides,
  };
}
