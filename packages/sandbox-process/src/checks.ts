/**
 * Validation of the process runtime's options and inputs: each failure a `PlatformError`
 * VALIDATION_FAILED naming the offending field.
 * @module
 */
import { sandboxSpecSchema, validationError } from '@agent-platform/core';
import type { ExecInput, SandboxSpec } from '@agent-platform/core';
import { checkStdin } from '@agent-platform/core/adapter-kit';

export function checkSpecs(specs: SandboxSpec[]): SandboxSpec[] {
  if (!Array.isArray(specs) || specs.length === 0) {
    throw validationError(['specs'], 'A process runtime needs at least one sandbox spec');
  }
  const seen = new Set<string>();
  return specs.map((spec, index) => {
    const parsed = sandboxSpecSchema.safeParse(spec);
    if (!parsed.success) {
      throw validationError(['specs', index], `Invalid sandbox spec: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    if (seen.has(parsed.data.id)) throw validationError(['specs', index, 'id'], `Duplicate spec id ${parsed.data.id}`);
    seen.add(parsed.data.id);
    checkEnv(parsed.data.initial_env, ['specs', index, 'initial_env']);
    return parsed.data;
  });
}

export function checkEnv(env: Record<string, string> | undefined, loc: (string | number)[]): Record<string, string> {
  if (env === undefined) return {};
  if (typeof env !== 'object' || env === null) throw validationError(loc, 'Environment must be an object');
  for (const [key, value] of Object.entries(env)) {
    if (key === '' || key.includes('=') || key.includes('\0')) {
      throw validationError([...loc, key], 'Environment variable names must be non-empty, without "=" or NUL');
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw validationError([...loc, key], 'Environment variable values must be strings without NUL');
    }
  }
  return env;
}

export function checkTimeout(value: number | undefined, loc: (string | number)[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw validationError(loc, 'Timeout must be a positive number of milliseconds');
  }
  return value;
}

export function checkMaxOutput(value: number | undefined, loc: (string | number)[]): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw validationError(loc, 'Output limit must be a non-negative integer number of bytes');
  }
  return value;
}

export function checkExecInput(
  input: ExecInput,
  defaultTimeoutMs: number | undefined,
  defaultMaxOutput: number,
): { timeoutMs: number | undefined; maxOutputBytes: number } {
  if (typeof input?.command !== 'string' || input.command.includes('\0')) {
    throw validationError(['command'], 'Command must be a string without NUL characters');
  }
  checkEnv(input.env, ['env']);
  if (input.files !== undefined && !Array.isArray(input.files)) {
    throw validationError(['files'], 'Files must be an array');
  }
  checkStdin(input.stdin);
  return {
    timeoutMs: checkTimeout(input.timeoutMs, ['timeoutMs']) ?? defaultTimeoutMs,
    maxOutputBytes: checkMaxOutput(input.maxOutputBytes, ['maxOutputBytes']) ?? defaultMaxOutput,
  };
}
