import { describe, expect, it } from 'vitest';
import { PATTERN_MISS_OUTCOME_LIMIT, SourceIndex, matchEvent, type AutomationRecord } from '@agent-platform/core';

let counter = 0;
function automation(on: string | string[], filter: string | null = null, overrides: Partial<AutomationRecord> = {}): AutomationRecord {
  counter += 1;
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString();
  return {
    id: `auto_${String(counter).padStart(4, '0')}`,
    org_id: 'acme',
    created_by: 'alice',
    name: `automation ${counter}`,
    enabled: true,
    trigger: { type: 'event', source: 'github', on, filter },
    instructions: 'do it',
    sandbox_spec_id: null,
    llm_model: null,
    selected_repository: null,
    timeout_seconds: null,
    created_at: stamp,
    updated_at: stamp,
    last_triggered_at: null,
    ...overrides,
  };
}

const prPayload = {
  action: 'labeled',
  pull_request: { title: 'Fix login', labels: [{ name: 'bug' }, { name: 'ui' }] },
  repository: { full_name: 'acme/web' },
  ref: 'refs/heads/main',
};

describe('matchEvent', () => {
  it('matches exact keys and globs, and says why others did not match', () => {
    const exact = automation('pull_request.labeled');
    const glob = automation('pull_request.*');
    const list = automation(['issues.opened', 'pull_request.labeled']);
    const other = automation('issues.opened');
    const index = new SourceIndex([exact, glob, list, other]);
    const { matched, outcomes } = matchEvent(index, 'pull_request.labeled', prPayload);
    expect(matched.map((a) => a.record.id)).toEqual([exact.id, glob.id, list.id]);
    expect(outcomes.find((o) => o.automation_id === other.id)).toMatchObject({ matched: false, reason: 'event_pattern' });
  });

  it('applies filters with contains, icontains and glob, and JMESPath truthiness', () => {
    const contains = automation('pull_request.*', "contains(pull_request.labels[].name, 'bug')");
    const icontains = automation('pull_request.*', "icontains(pull_request.title, 'LOGIN')");
    const glob = automation('pull_request.*', "glob(ref, 'refs/heads/*')");
    const falsy = automation('pull_request.*', "pull_request.labels[?name == 'docs']");
    const combined = automation('pull_request.*', "repository.full_name == 'acme/web' && action == 'labeled'");
    const { outcomes } = matchEvent(new SourceIndex([contains, icontains, glob, falsy, combined]), 'pull_request.labeled', prPayload);
    expect(outcomes.map((o) => o.reason)).toEqual(['matched', 'matched', 'matched', 'filter_false', 'matched']);
  });

  it('fails closed per automation on a filter error, recording the message, without affecting others', () => {
    const broken = automation('pull_request.*', "icontains(missing_field, 'x')");
    const fine = automation('pull_request.*', "contains(pull_request.labels[].name, 'ui')");
    const { matched, outcomes } = matchEvent(new SourceIndex([broken, fine]), 'pull_request.labeled', prPayload);
    expect(matched.map((a) => a.record.id)).toEqual([fine.id]);
    expect(outcomes[0]).toMatchObject({ automation_id: broken.id, matched: false, reason: 'filter_error' });
    expect(outcomes[0]?.error).toMatch(/icontains|type|null/i);
  });

  it('records a stored filter that no longer compiles as a filter error', () => {
    const stale = automation('push', 'nonexistent_fn(ref)');
    const { outcomes } = matchEvent(new SourceIndex([stale]), 'push', { ref: 'x' });
    expect(outcomes[0]).toMatchObject({ reason: 'filter_error', error: 'unknown function nonexistent_fn()' });
  });

  it('is case-sensitive and does not let a glob in the key act as a pattern', () => {
    const index = new SourceIndex([automation('Push'), automation('push')]);
    expect(matchEvent(index, 'push', {}).matched).toHaveLength(1);
    expect(matchEvent(new SourceIndex([automation('push')]), '*', {}).matched).toHaveLength(0);
  });

  it('lists only pattern hits once there are more candidates than the outcome limit', () => {
    const many = Array.from({ length: PATTERN_MISS_OUTCOME_LIMIT + 1 }, (_, i) => automation(`event.${i}`));
    const { outcomes, matched } = matchEvent(new SourceIndex(many), 'event.7', {});
    expect(matched).toHaveLength(1);
    expect(outcomes).toHaveLength(1);
  });

  it('finds exact-key automations by lookup: a large index answers only its hits', () => {
    const many = Array.from({ length: 5000 }, (_, i) => automation(`event.${i}`));
    const index = new SourceIndex([...many, automation('event.*')]);
    expect(index.lookup('event.42').map((a) => a.record.trigger.on)).toEqual(['event.42', 'event.*']);
  });
});
