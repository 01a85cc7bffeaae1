/**
 * Every secret value an agent is given, so that whatever it reports can be scrubbed of them
 * before it is stored: no stored event holds a secret value.
 * @module
 */
import type { AgentSettings } from '../ports/agent-runner.js';
import { redact } from './line-splitter.js';

/** Shorter values would scrub ordinary text; they are not treated as secrets. */
const MIN_SECRET_LENGTH = 4;

export function secretValuesOf(settings: AgentSettings): string[] {
  const values: string[] = [];
  if (settings.llmApiKey) values.push(settings.llmApiKey);
  if (settings.searchApiKey) values.push(settings.searchApiKey);
  if (settings.sandboxApiKey) values.push(settings.sandboxApiKey);
  for (const entry of Object.values(settings.providerTokens)) if (entry) values.push(entry.token);
  values.push(...Object.values(settings.customSecrets));
  if (settings.mcpConfig) {
    for (const server of [...settings.mcpConfig.sse_servers, ...settings.mcpConfig.shttp_servers]) if (server.api_key) values.push(server.api_key);
    for (const server of settings.mcpConfig.stdio_servers) for (const value of Object.values(server.env)) if (value) values.push(value);
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/** A copy of a JSON value with every secret in its strings (keys included) replaced. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redact(node, secrets);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(node)) out[redact(key, secrets)] = walk(inner);
      return out;
    }
    return node;
  };
  return walk(value) as T;
}
