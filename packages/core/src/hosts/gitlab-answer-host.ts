/**
 * GitLab on the answer-back port (gitlab.com and self-managed): an event's thread is its issue
 * (`group/project#iid`) or merge request (`group/project!iid`). What asked gets 👀 (`eyes`
 * award emoji): the note that asked, or the issue or merge request a new one opened. The run's
 * note goes on the issue or merge request — as a reply in the discussion when the note that
 * asked was written in one (a thread, a comment on a diff line). With the owner's GitLab token
 * and host (`provider_tokens.gitlab`: no host is gitlab.com), through `@gitbeaker/rest`.
 * @module
 */
import type { AnswerChannel, AnswerHost } from '../ports/answer-host.js';
import { createGitLabApi, type GitLabApi, type GitLabNoteable } from './gitlab-api.js';
import { GITLAB_HOST, gitlabAnswerThread, type GitLabLocator, isGitLabSource } from './gitlab-thread.js';
import { createGitLabAgentTools, projectPath } from './gitlab-tools.js';

export { GITLAB_HOST, gitlabAnswerThread, type GitLabLocator, isGitLabSource } from './gitlab-thread.js';

export interface GitLabAnswerHostOptions {
  /** The GitLab API for a token and host (`null`: gitlab.com). Default: `@gitbeaker/rest`. */
  apiFor?(token: string, host: string | null): GitLabApi;
}

export function createGitLabAnswerHost(options: GitLabAnswerHostOptions = {}): AnswerHost {
  const apiFor = options.apiFor ?? createGitLabApi;
  return {
    name: GITLAB_HOST,
    handles: isGitLabSource,
    threadOf: gitlabAnswerThread,
    channel(thread, owner) {
      const gitlab = owner.settings.providerTokens.gitlab;
      if (!gitlab?.token) return { none: `no GitLab token is stored for the automation's owner (${owner.userId}); store one in their settings` };
      let api: GitLabApi;
      try {
        api = apiFor(gitlab.token, gitlab.host);
      } catch (error) {
        return { none: error instanceof Error ? error.message : String(error) };
      }
      return gitLabChannel(api, thread.locator as unknown as GitLabLocator);
    },
    agentTools(input) {
      const gitlab = input.owner.settings.providerTokens.gitlab;
      // Outside a GitLab thread (a manual dispatch, a push) the run gets no GitLab tools.
      if (!gitlab?.token || !input.thread) return null;
      const locator = input.thread.locator as unknown as GitLabLocator;
      // Projects as GitLab names them: an automation's `selected_repository` may be a clone URL.
      const repositories: string[] = [];
      for (const name of input.repositories.map(projectPath))
        if (name && !repositories.some((known) => known.toLowerCase() === name.toLowerCase())) repositories.push(name);
      return createGitLabAgentTools(
        {
          repositories,
          thread: { repository: locator.project, number: locator.iid, kind: locator.kind },
          pullRequest: input.pullRequest,
          onPullRequest: input.onPullRequest,
          onThreadAction: input.onThreadAction,
        },
        { token: gitlab.token, host: gitlab.host },
        { apiFor },
      );
    },
  };
}

/** `body` with each `` `/approve` `` and `` `/reject` `` it tells people to write put after `mention`. */
const afterMention = (body: string, mention: string): string => body.replace(/`\/(approve|reject)`/g, (_, command: string) => `\`${mention} /${command}\``);

function gitLabChannel(api: GitLabApi, locator: GitLabLocator): AnswerChannel {
  const on: GitLabNoteable = { kind: locator.kind, iid: locator.iid };
  return {
    acknowledge: () => api.awardEmoji(locator.project, on, locator.note_id, 'eyes'),
    post: (body) => api.createNote(locator.project, on, body, locator.discussion_id),
    // On a merge request GitLab runs a note that starts with `/approve` as its own quick action
    // (approving the merge request, posting no note): the request says to mention the agent first.
    askApproval: (body, held) =>
      api.createNote(locator.project, on, locator.kind === 'merge_request' && held.mention ? afterMention(body, held.mention) : body, locator.discussion_id),
    // A note is edited by its id wherever it is (a reply in a discussion too).
    edit: (id, body) => api.editNote(locator.project, on, Number(id), body),
    // The or merge request's notes hold the replies in its discussions too.
    find: (marker, since) => api.findNote(locator.project, on, marker, since),
  };
}
