/**
 * Docker engines named by address, the way `DOCKER_HOST` names one: `unix:///run/docker.sock`,
 * `tcp://10.0.0.5:2375`, optionally with a name in front (`east=tcp://10.0.0.5:2375`).
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Dockerode from 'dockerode';
import { validationError } from '@agent-platform/core';

/** One engine sandboxes may be placed on. */
export interface DockerEngine {
  /** How the engine is named in `inspect` (`engine`), logs and errors: unique among the engines. */
  name: string;
  /** Its client. */
  docker: Dockerode;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/**
 * An engine from an address: `[name=]unix:///path` or `[name=]tcp://host:port` (its name: the
 * one given, else the address). A `tcp://` engine speaks TLS like the Docker CLI does — when
 * `DOCKER_TLS_VERIFY=1` or the port is 2376 — with the certificates in `DOCKER_CERT_PATH`
 * (`ca.pem`, `cert.pem`, `key.pem`). `field` names the setting in a validation error.
 */
export function engineFromAddress(entry: string, field: (string | number)[]): DockerEngine {
  const at = entry.indexOf('=');
  const named = at > 0 && !entry.slice(0, at).includes('/');
  const name = named ? entry.slice(0, at).trim() : entry.trim();
  const address = (named ? entry.slice(at + 1) : entry).trim();
  if (named && !NAME_PATTERN.test(name)) throw validationError(field, `engine name ${JSON.stringify(name)}: letters, digits, _ . - only`);
  if (address.startsWith('unix://')) {
    const socketPath = address.slice('unix://'.length);
    if (!socketPath.startsWith('/')) throw validationError(field, `${JSON.stringify(address)}: a unix:// address needs an absolute socket path`);
    // `host: undefined`: a tcp DOCKER_HOST in the environment must not win over this socket.
    return { name, docker: new Dockerode({ socketPath, host: undefined }) };
  }
  if (address.startsWith('tcp://')) {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw validationError(field, `${JSON.stringify(address)} is not an address like tcp://10.0.0.5:2375`);
    }
    if (!url.hostname || !url.port) throw validationError(field, `${JSON.stringify(address)}: a tcp:// address needs a host and a port`);
    const tls = process.env.DOCKER_TLS_VERIFY === '1' || url.port === '2376';
    const certs = tls && process.env.DOCKER_CERT_PATH ? certificates(process.env.DOCKER_CERT_PATH) : {};
    return { name, docker: new Dockerode({ host: url.hostname, port: Number(url.port), protocol: tls ? 'https' : 'http', ...certs }) };
  }
  throw validationError(field, `${JSON.stringify(address)}: an engine is unix:///path/to/docker.sock or tcp://host:port`);
}

function certificates(dir: string): { ca: Buffer; cert: Buffer; key: Buffer } {
  return { ca: readFileSync(join(dir, 'ca.pem')), cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
}

/** The engines of a runtime's `engines` option, validated: at least one, names unique. */
export function resolveEngines(entries: readonly (DockerEngine | string)[]): DockerEngine[] {
  if (entries.length === 0) throw validationError(['engines'], 'at least one engine is needed');
  const engines = entries.map((entry, index) => (typeof entry === 'string' ? engineFromAddress(entry, ['engines', index]) : entry));
  const names = new Set<string>();
  engines.forEach((engine, index) => {
    if (!engine.name) throw validationError(['engines', index, 'name'], 'each engine needs a name');
    if (names.has(engine.name)) throw validationError(['engines', index, 'name'], `engine name ${JSON.stringify(engine.name)} is used twice`);
    names.add(engine.name);
  });
  return engines;
}
