import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRIDGE_TARGET, EGRESS_LABEL, SOCKET_TARGET_DIR, checkBridge, defaultBridgePath, withEgress } from './container.js';

describe('a container with egress through the proxy', () => {
  it('starts the bridge ahead of its own entrypoint, without a network, with the proxy in its environment', () => {
    const options = withEgress(
      {
        Image: 'busybox',
        Entrypoint: ['/bin/sh', '-c'],
        Cmd: ['sleep 1'],
        Env: ['A=1', 'HTTP_PROXY=http://elsewhere:8080'],
        Labels: { keep: 'me' },
        HostConfig: { NetworkMode: 'bridge', Mounts: [{ Type: 'volume', Source: 'v', Target: '/workspace' }] },
      },
      { hostDir: '/tmp/egress/abc', bridge: '/opt/egress-bridge', port: 3128, allow: ['github.com', '*.npmjs.org:443'] },
    );
    expect(options.Entrypoint).toEqual([BRIDGE_TARGET, '3128', `${SOCKET_TARGET_DIR}/proxy.sock`, '/bin/sh', '-c']);
    expect(options.Cmd).toEqual(['sleep 1']);
    expect(options.Env).toEqual([
      'A=1',
      'HTTP_PROXY=http://127.0.0.1:3128',
      'HTTPS_PROXY=http://127.0.0.1:3128',
      'http_proxy=http://127.0.0.1:3128',
      'https_proxy=http://127.0.0.1:3128',
      'NO_PROXY=localhost,127.0.0.1',
      'no_proxy=localhost,127.0.0.1',
    ]);
    expect(options.Labels).toEqual({ keep: 'me', [EGRESS_LABEL]: '["github.com","*.npmjs.org:443"]' });
    expect(options.HostConfig?.NetworkMode).toBe('none');
    expect(options.HostConfig?.Mounts).toEqual([
      { Type: 'volume', Source: 'v', Target: '/workspace' },
      { Type: 'bind', Source: '/opt/egress-bridge', Target: BRIDGE_TARGET, ReadOnly: true },
      { Type: 'bind', Source: '/tmp/egress/abc', Target: SOCKET_TARGET_DIR, ReadOnly: true },
    ]);
  });

  it('finds the bridge in the package’s native folder, and says how to build one that is missing', () => {
    expect(defaultBridgePath()).toBe(path.resolve(import.meta.dirname, '../../native/egress-bridge'));
    expect(() => checkBridge('/nonexistent/egress-bridge')).toThrow(
      /The egress bridge \/nonexistent\/egress-bridge is missing: build it with `gcc -static -O2 -o <path> egress-bridge.c`/,
    );
  });
});
