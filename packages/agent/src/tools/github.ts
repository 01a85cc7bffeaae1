/**
 * GitHub tools: the agent of an automation run comments on, labels and opens pull requests in
 * the run's repositories, with its owner's token (which the agent never sees). The port
 * (`AgentGitHubTools`, implemented by core) checks the scope and the input and calls GitHub; a
 * refusal comes back to the model with its reason, as for the platform tools.
 * @module
 */
import { GITHUB_REPOSITORY_PATTERN, type AgentGitHubTools } from '@agent-platform/core';
import { z } from 'zod';
import { defineTool, isObject, type ToolDefinition } from './define-tool.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';
import { asText, refusal } from './refusal.js';

async function call(context: ToolContext, work: (tools: AgentGitHubTools) => Promise<unknown>): Promise<ToolResult> {
  if (!context.github) return { text: 'GitHub tools are not available here', isError: true };
  try {
    return { text: asText(await work(context.github)), isError: false };
  } catch (error) {
    return refusal(error);
  }
}

const repository = z
  .string()
  .regex(GITHUB_REPOSITORY_PATTERN, 'a repository is owner/name')
  .max(200)
  .optional()
  .describe('The repository, owner/name (default: see the description).');
const number = z.number().int().positive().optional().describe('The issue or pull request number (default: see the description).');

const commentInput = z.object({
  body: z.string().min(1).max(65536).describe('The comment, in GitHub Markdown.'),
  repository,
  number,
});

const labelsInput = z.object({
  labels: z.array(z.string().min(1).max(50)).min(1).max(100).describe('The labels to add (labels it already has stay).'),
  repository,
  number,
});

const branch = z.string().min(1).max(255);
const pullRequestInput = z.object({
  title: z.string().min(1).max(256),
  body: z.string().max(65536).optional().describe('The description, in GitHub Markdown.'),
  head: branch.describe('The branch with the changes: one you pushed to the repository.'),
  base: branch.optional().describe("The branch to merge into (default: the repository's default branch)."),
  draft: z.boolean().optional().describe('Open it as a draft.'),
  repository,
});

const kinds = { actionKind: 'GitHubToolAction', observationKind: 'GitHubToolObservation' } as const;

function githubTool<Input extends z.ZodType>(tool: Omit<ToolDefinition<Input>, keyof typeof kinds>) {
  return defineTool({ ...tool, ...kinds });
}

const quoted = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value) : '');

/** What the tools are told about their defaults, built from the port's repositories and thread. */
function defaults(tools: AgentGitHubTools) {
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

/** The GitHub tools for a run whose host gave it `AgentGitHubTools`; their descriptions name its repositories and thread. */
export function githubTools(tools: AgentGitHubTools): AnyTool[] {
  const { text, repositoryOf, target } = defaults(tools);
  return [
    githubTool({
      name: 'github_comment',
      description: sentence('Comment on a GitHub issue or pull request. Answers the comment: {id, url}.', ...text.thread),
      input: commentInput,
      summarize: (args) => `comment on ${target(args)}`,
      execute: (args, context) => call(context, (github) => github.comment(args)),
    }),
    githubTool({
      name: 'github_add_labels',
      description: sentence('Add labels to a GitHub issue or pull request. Answers the labels it has now: {labels}.', ...text.thread),
      input: labelsInput,
      summarize: (args) =>
        sentence('label', target(args), Array.isArray(args.labels) ? args.labels.filter((label) => typeof label === 'string').join(', ') : ''),
      execute: (args, context) => call(context, (github) => github.addLabels(args)),
    }),
    githubTool({
      name: 'create_pull_request',
      description: sentence(
        'Open a GitHub pull request from `head`, a branch you committed to and pushed (git push), into `base`. Answers {number, url}.',
        ...text.repository,
      ),
      input: pullRequestInput,
      summarize: (args) => sentence('open pull request in', repositoryOf(args), quoted(args.title)),
      execute: (args, context) => call(context, (github) => github.createPullRequest(args)),
    }),
  ];
}
