import { describe, expect, it } from 'vitest';
import { expressionSchema } from '../expressions/expression-schema.js';
import { HOST_SOURCE_KINDS, hostKindOfSource, signatureSchemeSchema, webhookCreateInputSchema } from '../schemas/webhook.js';
import { signatureScheme } from '../signatures/registry.js';
import { SOURCE_KINDS, sourceKindOf } from './source-kinds.js';

describe('source kinds', () => {
  it('set fields a custom source could have set: a registered scheme, header names, an expression that passes validation', () => {
    for (const kind of HOST_SOURCE_KINDS) {
      const { preset } = SOURCE_KINDS[kind];
      expect(signatureSchemeSchema.safeParse(preset.signature_scheme).success, kind).toBe(true);
      expect(signatureScheme(preset.signature_scheme), kind).toBeDefined();
      expect(expressionSchema.safeParse(preset.event_key_expr).success, kind).toBe(true);
    }
  });

  it('belong to sources named after their host', () => {
    expect(hostKindOfSource('gitlab')).toBe('gitlab');
    expect(hostKindOfSource('gitlab-self-managed')).toBe('gitlab');
    expect(hostKindOfSource('bitbucketeer')).toBeNull();
    expect(hostKindOfSource('my-slack')).toBeNull();
    const parse = (input: Record<string, unknown>) => webhookCreateInputSchema.safeParse({ name: 'n', ...input }).success;
    expect(parse({ kind: 'slack', source: 'slack-eng' })).toBe(true);
    expect(parse({ source: 'slack-eng' })).toBe(false);
    expect(parse({ kind: 'bitbucket', source: 'gitlab' })).toBe(false);
    expect(parse({ source: 'github' })).toBe(false);
  });

  it('are read from a stored webhook; one stored before kinds is custom', () => {
    expect(sourceKindOf({ kind: 'slack' })?.kind).toBe('slack');
    expect(sourceKindOf({ kind: 'custom' })).toBeNull();
    expect(sourceKindOf({})).toBeNull();
  });

  it('answer Slack’s URL verification, and nothing else, as a handshake', () => {
    const slack = SOURCE_KINDS.slack;
    expect(slack.handshake({ type: 'url_verification', challenge: 'abc', token: 't' })).toEqual({ challenge: 'abc' });
    expect(slack.handshake({ type: 'event_callback', event: { type: 'app_mention' } })).toBeNull();
    expect(SOURCE_KINDS.gitlab.handshake({ type: 'url_verification', challenge: 'abc' })).toBeNull();
  });
});
