/**
 * The security analyzer port: rates one action an agent is about to take — LOW, MEDIUM, HIGH, or
 * UNKNOWN — with a few words saying why, as OpenHands' security analyzers do. The owner's
 * `security_analyzer` setting names one; in confirmation mode only the actions rated at or above
 * the host's threshold wait for the user (unrated ones always wait). Built in: `policy`
 * (`createPolicyAnalyzer`, rules over the action) and `llm` (in `@agent-platform/agent`: the
 * model rates its own actions); a host registers more by name on its agent runner.
 * @module
 */
import type { SecurityRating, SecurityRisk } from '../schemas/security-risk.js';

/** What is known of the run an action belongs to. */
export interface SecurityContext {
  /** Names of the environment variables of the agent's commands that hold secrets (custom secrets, provider tokens). */
  secretVariables: readonly string[];
  /** Hosts of the owner's code hosts (`github.com`, a GitHub Enterprise host …): a token sent there authenticates. */
  codeHosts: readonly string[];
  /** The repository in the sandbox, read there when asked; `null` when it cannot be told (no repository, no remote HEAD). */
  git: {
    /** The branch checked out now. */
    currentBranch(): Promise<string | null>;
    /** The remote's default branch (`origin/HEAD`). */
    defaultBranch(): Promise<string | null>;
  };
}

/** One action (one tool call) to rate, before it runs. */
export interface ActionToRate {
  toolName: string;
  /** The OpenHands action kind: `TerminalAction`, `FileEditorAction`, `MCPToolAction`, `GitHubToolAction`, `PlatformToolAction`, … */
  actionKind: string;
  /** The call's arguments as the model wrote them (without `security_risk`). */
  args: Record<string, unknown>;
  /** The tool changes nothing (think, finish, listings). */
  readOnly: boolean;
  /**
   * The model's own rating of the action, for an analyzer that asks for one ({@link SecurityAnalyzer.asksModel}):
   * `null` when the model gave none, or not one of LOW, MEDIUM, HIGH.
   */
  modelRisk: Exclude<SecurityRisk, 'UNKNOWN'> | null;
  context: SecurityContext;
}

export interface SecurityAnalyzer {
  /**
   * Whether the model is asked to rate each of its actions: every tool that changes something
   * gets a required `security_risk` argument (LOW, MEDIUM, HIGH), taken off before the tool
   * checks its arguments and handed to {@link rate} as `modelRisk`. Default false.
   */
  readonly asksModel?: boolean;
  /** The action's rating. A rejection counts as UNKNOWN (in confirmation mode, the action waits). */
  rate(action: ActionToRate): SecurityRating | Promise<SecurityRating>;
}
