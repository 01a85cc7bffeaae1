import { describe, expect, it } from 'vitest';
import type { AgentSettings } from '../ports/agent-runner.js';
import { repositoryEgressHosts } from './git-checkout.js';

const settings = (providerTokens: AgentSettings['providerTokens']) => ({ providerTokens }) as AgentSettings;

describe('the git host on a sandbox’s egress allowlist', () => {
  it('is the provider’s public host, the owner’s own host, or the URL’s host and port', () => {
    expect(repositoryEgressHosts(settings({}), { repository: 'acme/app' })).toEqual(['github.com']);
    expect(repositoryEgressHosts(settings({}), { repository: 'group/sub/app', provider: 'gitlab' })).toEqual(['gitlab.com']);
    expect(
      repositoryEgressHosts(settings({ gitlab: { token: 't', host: 'https://git.acme.test/gitlab' } }), { repository: 'a/b', provider: 'gitlab' }),
    ).toEqual(['git.acme.test']);
    expect(repositoryEgressHosts(settings({}), { repository: 'https://code.acme.test:8443/a/b.git' })).toEqual(['code.acme.test:8443']);
  });

  it('is none when the target names no usable remote (its clone fails and says why)', () => {
    expect(repositoryEgressHosts(settings({}), null)).toEqual([]);
    expect(repositoryEgressHosts(settings({}), { repository: 'not a repository' })).toEqual([]);
    expect(repositoryEgressHosts(settings({}), { repository: 'a/b', provider: 'nonsense' })).toEqual([]);
    expect(repositoryEgressHosts(settings({}), { repository: 'a/b', provider: 'forgejo' })).toEqual([]);
  });
});
