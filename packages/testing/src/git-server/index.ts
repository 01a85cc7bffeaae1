/**
 * A real git smart-HTTP server (`git http-backend`) for tests of cloning and pushing.
 * @module
 */
export { startGitServer } from './git-server.js';
export type { GitFiles, GitRepositorySetup, GitServer, GitServerOptions, RecordedGitRequest } from './git-server.js';
