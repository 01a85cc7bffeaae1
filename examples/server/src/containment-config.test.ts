import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { dockerContainment } from './containment-config.js';

const docker = { AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_SANDBOX: 'docker' };

describe('containment settings', () => {
  it('are off by default: the engine’s default runtime, and its network', () => {
    expect(loadConfig(docker).containment).toEqual({ runtimeClass: null, egress: null });
    expect(dockerContainment(loadConfig(docker).containment)).toEqual({});
  });

  it('AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS names the runtime Docker sandboxes run under', () => {
    const config = loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS: ' runsc ' });
    expect(config.containment.runtimeClass).toBe('runsc');
    expect(dockerContainment(config.containment)).toEqual({ runtimeClass: 'runsc' });
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS: 'run sc' })).toThrow(
      /AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS must be a runtime registered with the Docker engine, like runsc/,
    );
  });

  it('AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW turns egress on with its hosts; AGENT_PLATFORM_SANDBOX_EGRESS=on with none', () => {
    const config = loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: 'registry.npmjs.org, *.pypi.org ,10.0.0.5:8080' });
    expect(config.containment.egress).toEqual({ allow: ['registry.npmjs.org', '*.pypi.org', '10.0.0.5:8080'], socketDir: null, bridge: null });
    expect(loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS: 'on' }).containment.egress).toEqual({ allow: [], socketDir: null, bridge: null });
    expect(
      dockerContainment(
        loadConfig({
          ...docker,
          AGENT_PLATFORM_SANDBOX_EGRESS: 'on',
          AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR: '/run/agent-platform/egress',
          AGENT_PLATFORM_SANDBOX_EGRESS_BRIDGE: '/opt/agent-platform/egress-bridge',
        }).containment,
      ),
    ).toEqual({ egress: { allow: [], socketDir: '/run/agent-platform/egress', bridge: '/opt/agent-platform/egress-bridge' } });
  });

  it('refuses what cannot work, naming the variable', () => {
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: 'github.com,http://evil' })).toThrow(
      /AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW entry 2: "http:\/\/evil" is not a host/,
    );
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS: 'maybe' })).toThrow('AGENT_PLATFORM_SANDBOX_EGRESS must be on or off, got "maybe"');
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS: 'off', AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: 'github.com' })).toThrow(
      /AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW is set but AGENT_PLATFORM_SANDBOX_EGRESS is off/,
    );
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_EGRESS: 'on', AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR: 'relative/dir' })).toThrow(
      'AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR must be an absolute path, got "relative/dir"',
    );
    const processRuntime = { AGENT_PLATFORM_STORAGE: 'memory' };
    expect(() => loadConfig({ ...processRuntime, AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS: 'runsc' })).toThrow(
      'AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no containers',
    );
    expect(() => loadConfig({ ...processRuntime, AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: 'github.com' })).toThrow(
      'AGENT_PLATFORM_SANDBOX_EGRESS needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no containers',
    );
  });
});
