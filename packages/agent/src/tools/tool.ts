/**
 * A tool the built-in agent can call: its schema for the model, how a call is shown as an
 * OpenHands action and observation, and what it does (in the sandbox, on the platform or on an
 * MCP server). Tools are declared with `defineTool` (one zod schema) or `defineJsonSchemaTool`
 * (a JSON Schema someone else checks); the loop holds them as {@link AnyTool}.
 * @module
 */
import type { AgentHostTools, AgentPlatformTools, SandboxRuntime } from '@agent-platform/core';
import type { JSONSchema7 } from '@ai-sdk/provider';

export interface ToolContext {
  runtime: SandboxRuntime;
  sandboxId: string;
  /** The sandbox's working directory, as seen inside it. */
  workingDir: string;
  /** Environment of the commands the agent runs: custom secrets, git identity, provider tokens. */
  env: Record<string, string>;
  signal: AbortSignal;
  platform?: AgentPlatformTools;
  /** GitHub in the run's repositories with the owner's token (automation runs that have one). */
  host?: AgentHostTools;
}

export interface ToolResult {
  /** What the model is told. */
  text: string;
  isError: boolean;
  /** Fields of the OpenHands observation besides `kind` and `content` (e.g. `exit_code`). */
  observation?: Record<string, unknown>;
  /** The finish tool: the agent is done, with `text` as its final answer. */
  finish?: boolean;
}

/** A call's arguments checked: what they are, typed, or a message for the model saying what is wrong. */
export type ParsedArguments<Args> = { ok: true; args: Args } | { ok: false; error: string };

/**
 * One call of a tool with the model's arguments, checked. Either way it says in one line what the
 * call does (for the action event): bound to its arguments and ready to run, or refused with
 * what is wrong for the model.
 */
export type PreparedCall = { ok: true; summary: string; run(context: ToolContext): Promise<ToolResult> } | { ok: false; summary: string; error: string };

/**
 * Any tool, whatever its arguments' type: what the loop holds. What the model is told about it,
 * the OpenHands kinds of its events, and `prepare`, which checks a call's arguments.
 */
export interface AnyTool {
  readonly name: string;
  readonly description: string;
  /** The arguments' JSON Schema, as the model is given it. */
  readonly inputSchema: JSONSchema7;
  /** The OpenHands action kind (`TerminalAction`) and observation kind (`TerminalObservation`). */
  readonly actionKind: string;
  readonly observationKind: string;
  /** Changes nothing (think, finish): never held for confirmation. */
  readonly readOnly: boolean;
  /** Checks the model's arguments and binds them to the tool. */
  prepare(input: unknown): PreparedCall;
}

/** A tool with the type of its arguments, as `defineTool` makes it; it erases to {@link AnyTool}. */
export interface AgentTool<Args = Record<string, unknown>> extends AnyTool {
  /** Checks a call's arguments; a message for the model when they are wrong. */
  parse(input: unknown): ParsedArguments<Args>;
  /** One line saying what a call does, for events and consoles. */
  summarize(args: Args): string;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
}

/** Quotes a value for `sh`. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** At most `max` characters: the start and the end, with what was cut in between said. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters cut ...]\n${text.slice(text.length - tail)}`;
}
