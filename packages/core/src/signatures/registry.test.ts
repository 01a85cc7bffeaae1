import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signatureSchemeSchema } from '../schemas/webhook.js';
import { CUSTOM_SIGNATURE_SCHEME_NAMES, DELIVERY_ID_HEADERS, SIGNATURE_SCHEME_NAMES, SIGNATURE_SCHEME_REGISTRY, signatureScheme } from './registry.js';

describe('the signature scheme registry', () => {
  it('has one scheme per name, each found by its name', () => {
    expect(new Set(SIGNATURE_SCHEME_NAMES).size).toBe(SIGNATURE_SCHEME_REGISTRY.length);
    for (const scheme of SIGNATURE_SCHEME_REGISTRY) expect(signatureScheme(scheme.name)).toBe(scheme);
    expect(signatureScheme('md5')).toBeUndefined();
    expect(signatureScheme('constructor')).toBeUndefined();
  });

  it('is where the webhook schema takes the names a custom source may use', () => {
    expect(signatureSchemeSchema.options).toEqual(SIGNATURE_SCHEME_REGISTRY.filter((scheme) => scheme.customSources).map((scheme) => scheme.name));
    expect(CUSTOM_SIGNATURE_SCHEME_NAMES).toContain('linear');
    expect(CUSTOM_SIGNATURE_SCHEME_NAMES).not.toContain('github');
    expect(signatureSchemeSchema.safeParse('github').success).toBe(false);
  });

  it('is where ingest takes the delivery-id headers it deduplicates by', () => {
    expect(DELIVERY_ID_HEADERS).toEqual(['webhook-id', 'linear-delivery', 'x-github-delivery']);
  });

  it('is documented scheme by scheme in docs/signature-schemes.md', () => {
    const doc = readFileSync(new URL('../../../../docs/signature-schemes.md', import.meta.url), 'utf8');
    for (const name of SIGNATURE_SCHEME_NAMES) expect(doc, name).toContain(`| \`${name}\``);
  });
});
