/**
 * The `policy` security analyzer: this platform's own rules over each action, no model asked.
 * Terminal commands are read as the shell reads them (pipelines, `&&`, `;`, substitutions,
 * `sh -c`) and rated by what their programs do: HIGH for what destroys (`rm -rf /`, `mkfs`,
 * `dd of=/dev/…`, a fork bomb), runs downloaded code (`curl … | sh`), sends credentials out
 * (`printenv | curl …`, `curl -d @~/.git-credentials …`) or force-pushes or deletes the default
 * branch; MEDIUM for a plain push to the default branch, a force push elsewhere, edits to CI
 * workflows and credential files, and tools that write on a host (GitHub, the platform); LOW for
 * the rest. MCP tools are UNKNOWN: what they do is not known here. A command the shell could
 * not read either is UNKNOWN. It is a heuristic over what the agent asks for, not a sandbox: a
 * determined agent can write a harmful command no rule recognises.
 * @module
 */
import type { ActionToRate, SecurityAnalyzer, SecurityContext } from '../ports/security-analyzer.js';
import type { SecurityRating } from '../schemas/security-risk.js';
import { commandFindings, type Finding } from './command-rules.js';
import { worstRating } from './confirmation.js';
import { fileEditFinding } from './file-rules.js';
import { pushesIn, pushFinding } from './git-push.js';
import { pipelinesOf } from './shell-commands.js';
import { ShellSyntaxError } from './shell-script.js';

/** `:(){ :|:& };:` and its renamings: a function that pipes itself into itself in the background. */
const FORK_BOMB = /([\w:.]+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}/;

/** What the policy analyzer holds for a host to tune: nothing yet; the rules are fixed. */
export function createPolicyAnalyzer(): SecurityAnalyzer {
  return { rate: ratePolicy };
}

async function ratePolicy(action: ActionToRate): Promise<SecurityRating> {
  if (action.readOnly) return { risk: 'LOW', reason: 'changes nothing' };
  const { args } = action;
  switch (action.actionKind) {
    case 'TerminalAction':
      return typeof args.command === 'string' ? rateCommand(args.command, action.context) : { risk: 'UNKNOWN', reason: 'no command given' };
    case 'FileEditorAction':
      return typeof args.path === 'string' && typeof args.command === 'string'
        ? fileEditFinding(args.command, args.path)
        : { risk: 'UNKNOWN', reason: 'no path given' };
    case 'GitHubToolAction':
      return { risk: 'MEDIUM', reason: `writes on GitHub (${action.toolName})` };
    case 'HostToolAction':
      return { risk: 'MEDIUM', reason: `writes on the run's code host or chat (${action.toolName})` };
    case 'PlatformToolAction':
      return { risk: 'MEDIUM', reason: `changes the owner's automations (${action.toolName})` };
    case 'MCPToolAction':
      return { risk: 'UNKNOWN', reason: `${action.toolName} is an MCP tool: what it does is not known` };
    default:
      return { risk: 'UNKNOWN', reason: `no rule for ${action.toolName}` };
  }
}

/** A terminal command's rating: the worst of what every rule finds in it; LOW when none finds anything. */
export async function rateCommand(command: string, context: SecurityContext): Promise<SecurityRating> {
  if (FORK_BOMB.test(command)) return { risk: 'HIGH', reason: 'a fork bomb' };
  let findings: Finding[];
  try {
    const pipelines = pipelinesOf(command);
    findings = commandFindings(pipelines, context);
    for (const push of pushesIn(pipelines, context.codeHosts)) findings.push(...(await pushFinding(push, context.git)));
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { risk: 'UNKNOWN', reason: `the command cannot be read: ${error.message}` };
    throw error;
  }
  return worstRating(findings) ?? { risk: 'LOW', reason: 'no rule applies' };
}
