/**
 * The `policy` analyzer's rule for the file editor: reading or editing files is LOW, but for the
 * files where an edit reaches past the sandbox or holds secrets — CI workflows (they run with the
 * repository's secrets once pushed), credential files, git's hooks and config (they run
 * commands), shell startup files — which are MEDIUM; reading a credential file is MEDIUM too (its
 * contents go to the model's provider).
 * @module
 */
import type { Finding } from './command-rules.js';
import { namesCredentialFile } from './secret-signs.js';

const CI_FILES = [
  /(?:^|\/)\.github\/workflows\//,
  /(?:^|\/)\.github\/actions\//,
  /(?:^|\/)\.gitlab-ci\.ya?ml$/,
  /(?:^|\/)\.circleci\//,
  /(?:^|\/)Jenkinsfile$/,
  /(?:^|\/)bitbucket-pipelines\.yml$/,
  /(?:^|\/)\.buildkite\//,
];
const GIT_INTERNALS = /(?:^|\/)\.git\/(?:hooks\/|config$)/;
const STARTUP_FILES = /(?:^|\/)\.(?:bashrc|bash_profile|profile|zshrc|zprofile|bash_login)$/;

/** A file editor call's verdict: `command` is view, create, str_replace or insert. */
export function fileEditFinding(command: string, path: string): Finding {
  const shown = path.length > 120 ? `${path.slice(0, 119)}…` : path;
  if (command === 'view') {
    return namesCredentialFile(path)
      ? { risk: 'MEDIUM', reason: `reads ${shown}, which holds credentials: its contents go to the model` }
      : { risk: 'LOW', reason: `reads ${shown}` };
  }
  if (CI_FILES.some((pattern) => pattern.test(path)))
    return { risk: 'MEDIUM', reason: `edits the CI workflow ${shown}, which runs with the repository's secrets` };
  if (namesCredentialFile(path)) return { risk: 'MEDIUM', reason: `edits ${shown}, which holds credentials` };
  if (GIT_INTERNALS.test(path)) return { risk: 'MEDIUM', reason: `edits git's ${shown}, which runs commands` };
  if (STARTUP_FILES.test(path)) return { risk: 'MEDIUM', reason: `edits the shell startup file ${shown}` };
  return { risk: 'LOW', reason: `edits ${shown}` };
}
