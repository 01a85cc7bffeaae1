import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { dockerWarmPool, parseWarmPool } from './warm-pool-config.js';

const fail = (message: string) => new Error(message);
const open = { runtimeClass: null, egress: null };

describe('AGENT_PLATFORM_DOCKER_WARM_POOL', () => {
  it('is a count of containers of the default image, none when unset', () => {
    expect(parseWarmPool(undefined, 'docker', open, fail)).toBe(0);
    expect(parseWarmPool(' 4 ', 'docker', open, fail)).toBe(4);
    expect(dockerWarmPool(4, ['img:1', 'img:2'])).toEqual({ warmPool: { 'img:1': 4 } });
    expect(dockerWarmPool(0, ['img:1'])).toEqual({});
  });

  it('names the setting for a value it cannot use', () => {
    for (const value of ['-1', '1.5', 'lots', '101'])
      expect(() => parseWarmPool(value, 'docker', open, fail)).toThrow(/AGENT_PLATFORM_DOCKER_WARM_POOL must be an integer/);
    expect(() => parseWarmPool('2', 'process', open, fail)).toThrow(/needs AGENT_PLATFORM_SANDBOX=docker/);
    const egress = { runtimeClass: null, egress: { allow: ['github.com'], socketDir: null, bridge: null } };
    expect(() => parseWarmPool('2', 'docker', egress, fail)).toThrow(/AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW/);
  });

  it('reaches the server configuration, refused there as a ConfigError naming it', () => {
    const docker = { AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_SANDBOX: 'docker' };
    expect(loadConfig(docker).dockerWarmPool).toBe(0);
    expect(loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_WARM_POOL: '3' }).dockerWarmPool).toBe(3);
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_WARM_POOL: 'x' })).toThrow(
      /AGENT_PLATFORM_DOCKER_WARM_POOL must be an integer from 0 to 100, got "x"/,
    );
    expect(() => loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_DOCKER_WARM_POOL: '3' })).toThrow(/needs AGENT_PLATFORM_SANDBOX=docker/);
  });
});
