/**
 * Real GitHub webhook payloads from `@octokit/webhooks-examples` (the payloads GitHub documents),
 * picked by event, action and a predicate.
 */
import { createRequire } from 'node:module';

interface WebhookDefinition {
  name: string;
  actions: string[];
  examples: Record<string, unknown>[];
}

const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

export function githubExample(event: string, predicate: (payload: any) => boolean = () => true): Record<string, unknown> {
  const definition = definitions.find((candidate) => candidate.name === event);
  const example = definition?.examples.find(predicate);
  if (!example) throw new Error(`no @octokit/webhooks-examples payload for ${event} matching the predicate`);
  return structuredClone(example);
}
