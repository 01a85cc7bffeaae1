/**
 * Host tools: the agent of an automation run comments on, labels and opens pull (merge) requests
 * in the run's repositories on the host its event came from — GitHub, GitLab, Bitbucket, or
 * replies in a Slack thread — with its owner's credentials (which the agent never sees). The port
 * (`AgentHostTools`, implemented by core per host) checks the scope and the input and calls the
 * host; a refusal comes back to the model with its reason, as for the platform tools. The tools
 * are named by host (`github_comment`, `gitlab_add_labels`, `create_merge_request`, `slack_reply`),
 * and only those the host has are offered.
 * @module
 */
import type { AgentGitHubTools, AgentHostTools } from '@agent-platform/core';
import { z } from 'zod';
import { defineTool, isObject, type ToolDefinition } from './define-tool.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';
import { asText, refusal } from './refusal.js';

async function call(context: ToolContext, work: (tools: AgentHostTools) => Promise<unknown>): Promise<ToolResult> {
  if (!context.host) return { text: 'host tools are not available here', isError: true };
  try {
    return { text: asText(await work(context.host)), isError: false };
  } catch (error) {
    return refusal(error);
  }
}

// GitHub's and Bitbucket's `owner/name`, GitLab's `group/subgroup/project`: the port checks the scope.
const repository = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/, 'a repository is owner/name (on GitLab, group/project)')
  .max(200)
  .optional()
  .describe('The repository, owner/name (default: see the description).');
const number = z.number().int().positive().optional().describe('The issue or pull request number (default: see the description).');

const commentInput = z.object({
  body: z.string().min(1).max(65536).describe('The comment, in Markdown.'),
  repository,
  number,
});

const replyInput = z.object({ body: z.string().min(1).max(40000).describe('The reply, in Markdown (links, bold, code).') });

const labelsInput = z.object({
  labels: z.array(z.string().min(1).max(50)).min(1).max(100).describe('The labels to add (labels it already has stay).'),
  repository,
  number,
});

const branch = z.string().min(1).max(255);
const pullRequestInput = z.object({
  title: z.string().min(1).max(256),
  body: z.string().max(65536).optional().describe('The description, in Markdown.'),
  head: branch.describe('The branch with the changes: one you pushed to the repository.'),
  base: branch.optional().describe("The branch to merge into (default: the repository's default branch)."),
  draft: z.boolean().optional().describe('Open it as a draft.'),
  repository,
});

/** The events' kinds: GitHub's as they always were, every other host's under one name. */
const kindsOf = (host: string) =>
  host === 'github'
    ? ({ actionKind: 'GitHubToolAction', observationKind: 'GitHubToolObservation' } as const)
    : ({ actionKind: 'HostToolAction', observationKind: 'HostToolObservation' } as const);

/** How each host names itself and its change requests, for the tools' names and descriptions. */
const HOSTS: Record<string, { title: string; change: 'pull' | 'merge' }> = {
  github: { title: 'GitHub', change: 'pull' },
  gitlab: { title: 'GitLab', change: 'merge' },
  bitbucket: { title: 'Bitbucket', change: 'pull' },
  slack: { title: 'Slack', change: 'pull' },
};

const quoted = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value) : '');

/** What the tools are told about their defaults, built from the port's repositories and thread. */
function defaults(tools: AgentHostTools) {
  const [first] = tools.repositories;
  const { thread } = tools;
  const allowed = tools.repositories.length > 0 ? `Repositories you may act on: ${tools.repositories.join(', ')}.` : '';
  const repositoryDefault = first ? `\`repository\` defaults to ${first}.` : '';
  const threadDefault = thread
    ? `Without \`repository\` and \`number\`, it is ${thread.repository}#${thread.number}, the issue or pull request this run's event is about.`
    : 'There is no default issue or pull request (the event is not about one): give `number`.';
  /** Where a call goes, as far as it can be told here (the port decides), for its summary. */
  const repositoryOf = (args: unknown): string =>
    isObject(args) && typeof args.repository === 'string' ? args.repository : (first ?? thread?.repository ?? 'the default repository');
  const target = (args: unknown): string => {
    const repo = repositoryOf(args);
    const num = isObject(args) && typeof args.number === 'number' ? args.number : repo === thread?.repository ? thread.number : null;
    return num === null ? repo : `${repo}#${num}`;
  };
  return { text: { thread: [allowed, repositoryDefault, threadDefault], repository: [allowed, repositoryDefault] }, repositoryOf, target };
}

const sentence = (...parts: string[]): string => parts.filter((part) => part !== '').join(' ');

/** GitHub's tools as embedders passed them before there were other hosts (no `host`): the same object, named. */
export function hostPort(given: AgentHostTools | AgentGitHubTools): AgentHostTools {
  return given.host === undefined ? withHost(given) : (given as AgentHostTools);
}

function withHost(tools: AgentGitHubTools): AgentHostTools {
  return {
    host: 'github',
    repositories: tools.repositories,
    thread: tools.thread,
    comment: (input) => tools.comment(input),
    addLabels: (input) => tools.addLabels(input),
    createPullRequest: (input) => tools.createPullRequest(input),
  };
}

/** The tools for a run whose host gave it `AgentHostTools`: those the host has, named by host; their descriptions name its repositories and thread. */
export function hostTools(given: AgentHostTools | AgentGitHubTools): AnyTool[] {
  const tools = hostPort(given);
  const { text, repositoryOf, target } = defaults(tools);
  const host = HOSTS[tools.host] ?? { title: tools.host, change: 'pull' as const };
  const kinds = kindsOf(tools.host);
  const tool = <Input extends z.ZodType>(definition: Omit<ToolDefinition<Input>, keyof typeof kinds>) => defineTool({ ...definition, ...kinds });
  // A chat has no issues or repositories: its one tool replies in the run's thread.
  if (tools.repositories.length === 0 && !tools.thread) {
    return [
      tool({
        name: `${tools.host}_reply`,
        description: `Reply in the ${host.title} thread this run's event was written in (people there read it). Answers {id, url}.`,
        input: replyInput,
        summarize: () => `reply in the ${host.title} thread`,
        execute: (args, context) => call(context, (port) => port.comment(args)),
      }),
    ];
  }
  const list: AnyTool[] = [
    tool({
      name: `${tools.host}_comment`,
      description: sentence(`Comment on a ${host.title} issue or ${host.change} request. Answers the comment: {id, url}.`, ...text.thread),
      input: commentInput,
      summarize: (args) => `comment on ${target(args)}`,
      execute: (args, context) => call(context, (port) => port.comment(args)),
    }),
  ];
  const { addLabels, createPullRequest } = tools;
  if (addLabels) {
    list.push(
      tool({
        name: `${tools.host}_add_labels`,
        description: sentence(`Add labels to a ${host.title} issue or ${host.change} request. Answers the labels it has now: {labels}.`, ...text.thread),
        input: labelsInput,
        summarize: (args) =>
          sentence('label', target(args), Array.isArray(args.labels) ? args.labels.filter((label) => typeof label === 'string').join(', ') : ''),
        execute: (args, context) => call(context, () => addLabels.call(context.host, args)),
      }),
    );
  }
  if (createPullRequest) {
    list.push(
      tool({
        name: `create_${host.change}_request`,
        description: sentence(
          `Open a ${host.title} ${host.change} request from \`head\`, a branch you committed to and pushed (git push), into \`base\`. Answers {number, url}.`,
          ...text.repository,
        ),
        input: pullRequestInput,
        summarize: (args) => sentence(`open ${host.change} request in`, repositoryOf(args), quoted(args.title)),
        execute: (args, context) => call(context, () => createPullRequest.call(context.host, args)),
      }),
    );
  }
  return list;
}
