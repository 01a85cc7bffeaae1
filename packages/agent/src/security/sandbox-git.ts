/**
 * What the `policy` analyzer asks of the repository in the sandbox when a `git push` does not
 * name its branch: the branch checked out, and the remote's default branch. Read with `git` in
 * the working directory when asked (a push is rare; most actions ask nothing), the default
 * branch once per run.
 * @module
 */
import type { SandboxRuntime, SecurityContext } from '@agent-platform/core';

/** Where to run `git`: the run's sandbox, with its commands' environment. */
export interface GitPlace {
  runtime: SandboxRuntime;
  sandboxId: string;
  env: Record<string, string>;
  signal: AbortSignal;
}

const BRANCH = /^[^\s~^:?*[\\]{1,250}$/;

export function sandboxGit(place: GitPlace): SecurityContext['git'] {
  const read = async (command: string): Promise<string | null> => {
    let stdout = '';
    let exitCode: number | null = null;
    try {
      for await (const event of place.runtime.exec(place.sandboxId, {
        command,
        env: place.env,
        timeoutMs: 10_000,
        maxOutputBytes: 4096,
        signal: place.signal,
      })) {
        if (event.type === 'stdout') stdout += event.data;
        else if (event.type === 'exit') exitCode = event.result.exitCode;
      }
    } catch {
      return null;
    }
    const name = stdout.trim();
    return exitCode === 0 && BRANCH.test(name) ? name : null;
  };
  let defaultBranch: Promise<string | null> | null = null;
  return {
    currentBranch: () => read('git symbolic-ref --quiet --short HEAD 2>/dev/null'),
    defaultBranch: () => {
      defaultBranch ??= read("git symbolic-ref --quiet --short refs/remotes/origin/HEAD 2>/dev/null | sed 's|^origin/||'");
      return defaultBranch;
    },
  };
}
