/**
 * The GitHub ingest benchmarks' shared setup: real `pull_request.opened` payloads
 * signed per org, and the reference platform's orgs and automations.
 */
import { createRequire } from 'node:module';
import { signGithub, type AgentPlatform } from '@agent-platform/core';
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';

export const GITHUB_SECRET = 'bench-github-secret-0123';
export const ORGS = 1000;
export const AUTOMATIONS_PER_ORG = 10;

/**
 * One signed body per org (`orgs` of them, default 1,000): `@octokit/webhooks-examples`'
 * `pull_request.opened` (21 KB) with `repository.owner.login` set to `owner-<org>`.
 */
export function signedPullRequestBodies(orgs = ORGS): { body: Buffer; signature: string }[] {
  const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, any>[] }[];
  const opened = examples.find((definition) => definition.name === 'pull_request')!.examples.find((payload) => payload.action === 'opened')!;
  return Array.from({ length: orgs }, (_, org) => {
    const payload = structuredClone(opened);
    payload.repository.owner.login = `owner-${org}`;
    const body = Buffer.from(JSON.stringify(payload));
    return { body, signature: signGithub(GITHUB_SECRET, body) };
  });
}

/**
 * `orgs` orgs (default 1,000) each linked to account `owner-<i>`, with 10 automations per org of
 * which 1% in all (one in every tenth org) match `pull_request.opened`.
 */
export async function seedGithubOrgs(platform: AgentPlatform, orgs = ORGS): Promise<void> {
  for (let org = 0; org < orgs; org++) {
    const orgId = `org-${org}`;
    await platform.githubLinks.link({ orgId, account: `owner-${org}` });
    for (let j = 0; j < AUTOMATIONS_PER_ORG; j++) {
      const matches = j === 0 && org % 10 === 0;
      await platform.storage.automations.insert(
        makeAutomationRecord({
          id: `auto_${org}_${j}`,
          org_id: orgId,
          enabled: true,
          trigger: matches
            ? { type: 'event', source: 'github', on: 'pull_request.opened', filter: "pull_request.state == 'open'" }
            : { type: 'event', source: 'github', on: j % 2 ? 'issues.opened' : 'pull_request.labeled', filter: "contains(pull_request.labels[].name, 'bug')" },
        }),
      );
    }
  }
}
