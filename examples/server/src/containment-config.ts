/**
 * The reference server's containment settings for Docker sandboxes: gVisor
 * (`AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS`) and the egress allowlist
 * (`AGENT_PLATFORM_SANDBOX_EGRESS`, `AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW`,
 * `AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR`, `AGENT_PLATFORM_SANDBOX_EGRESS_BRIDGE`).
 * @module
 */
import path from 'node:path';
import { isPlatformError } from '@agent-platform/core';
import { parseEgressAllowlist, type ContainmentOptions } from '@agent-platform/sandbox-docker';

export interface ContainmentConfig {
  /** The OCI runtime Docker sandboxes run under (`runsc`: gVisor); `null`: the engine's default. */
  runtimeClass: string | null;
  /** Egress through the platform's proxy only; `null`: sandboxes have the engine's network. */
  egress: { allow: string[]; socketDir: string | null; bridge: string | null } | null;
}

type Env = Record<string, string | undefined>;

/** Throws `fail(message)` when a setting is malformed, or set without the Docker runtime. */
export function parseContainment(env: Env, sandbox: 'process' | 'docker', fail: (message: string) => Error): ContainmentConfig {
  const runtimeClass = env.AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS?.trim() || null;
  const allowText = env.AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW?.trim() ?? '';
  const switchText = env.AGENT_PLATFORM_SANDBOX_EGRESS?.trim().toLowerCase() ?? '';
  if (switchText && !['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'].includes(switchText)) {
    throw fail(`AGENT_PLATFORM_SANDBOX_EGRESS must be on or off, got "${switchText}"`);
  }
  // The list alone turns it on; `off` with a list is a contradiction worth an error.
  const egressOn = ['on', 'true', '1', 'yes'].includes(switchText) || (allowText !== '' && switchText === '');
  if (allowText && ['off', 'false', '0', 'no'].includes(switchText)) {
    throw fail('AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW is set but AGENT_PLATFORM_SANDBOX_EGRESS is off: unset one of them');
  }
  if (sandbox !== 'docker' && (runtimeClass || egressOn)) {
    const name = runtimeClass ? 'AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS' : 'AGENT_PLATFORM_SANDBOX_EGRESS';
    throw fail(`${name} needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no containers`);
  }
  if (runtimeClass && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(runtimeClass)) {
    throw fail(`AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS must be a runtime registered with the Docker engine, like runsc, got "${runtimeClass.slice(0, 100)}"`);
  }
  if (!egressOn) return { runtimeClass, egress: null };
  const allow = allowText
    ? allowText
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)
    : [];
  allow.forEach((entry, index) => {
    try {
      parseEgressAllowlist([entry], ['egress']);
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      throw fail(`AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW entry ${index + 1}: ${error.message}`);
    }
  });
  const absolute = (name: string): string | null => {
    const value = env[name]?.trim();
    if (!value) return null;
    if (!path.isAbsolute(value)) throw fail(`${name} must be an absolute path, got "${value.slice(0, 200)}"`);
    return value;
  };
  return {
    runtimeClass,
    egress: { allow, socketDir: absolute('AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR'), bridge: absolute('AGENT_PLATFORM_SANDBOX_EGRESS_BRIDGE') },
  };
}

/** The Docker runtime's options for these settings. */
export function dockerContainment(config: ContainmentConfig): Pick<ContainmentOptions, 'runtimeClass' | 'egress'> {
  return {
    ...(config.runtimeClass ? { runtimeClass: config.runtimeClass } : {}),
    ...(config.egress
      ? {
          egress: {
            allow: config.egress.allow,
            ...(config.egress.socketDir ? { socketDir: config.egress.socketDir } : {}),
            ...(config.egress.bridge ? { bridge: config.egress.bridge } : {}),
          },
        }
      : {}),
  };
}
