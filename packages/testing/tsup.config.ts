import { packageBuild } from '../../tsup.base.js';

export default packageBuild(
  ['index', 'fixtures', 'fake-llm', 'git-server', 'webhook-subscriber', 'flaky-runtime', 'pglite', 'github-api', 'gitlab-api', 'bitbucket-api', 'slack-api'],
  { shims: true },
);
