import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const docker = { AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_SANDBOX: 'docker' };

describe('AGENT_PLATFORM_DOCKER_HOSTS', () => {
  it('is empty by default: one engine, DOCKER_HOST or the local socket', () => {
    expect(loadConfig(docker).dockerHosts).toEqual([]);
  });

  it('lists the engines sandboxes are placed on, in order, names optional', () => {
    const config = loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_HOSTS: ' unix:///var/run/docker.sock , east=tcp://10.0.0.5:2375,' });
    expect(config.dockerHosts).toEqual(['unix:///var/run/docker.sock', 'east=tcp://10.0.0.5:2375']);
  });

  it('refuses what cannot work, naming the variable and the entry', () => {
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_HOSTS: 'unix:///var/run/docker.sock,http://10.0.0.5' })).toThrow(
      /AGENT_PLATFORM_DOCKER_HOSTS entry 2: "http:\/\/10.0.0.5": an engine is unix:\/\/\/path\/to\/docker.sock or tcp:\/\/host:port/,
    );
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_HOSTS: 'tcp://10.0.0.5' })).toThrow(/entry 1: .*needs a host and a port/);
    expect(() => loadConfig({ ...docker, AGENT_PLATFORM_DOCKER_HOSTS: 'a=unix:///x.sock,a=unix:///y.sock' })).toThrow(/entry 2: engine name "a" is used twice/);
    expect(() => loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_DOCKER_HOSTS: 'unix:///x.sock' })).toThrow(
      /AGENT_PLATFORM_DOCKER_HOSTS needs AGENT_PLATFORM_SANDBOX=docker/,
    );
  });
});
