/**
 * `PORT=0` asks for any free port. The platform is built before the server listens, and its
 * public URL (in webhook URLs and the links runs post on GitHub) must name the real port, so a
 * free port is picked first and the server then listens on it. A port taken in between fails
 * the start with the usual "address in use" error rather than a wrong URL.
 * @module
 */
import { createServer } from 'node:net';
import type { ServerConfig } from './config.js';

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The config with a real port in place of 0 and, unless one was given, a public URL naming it. */
export async function withConcretePort(config: ServerConfig, publicUrlGiven: boolean): Promise<ServerConfig> {
  if (config.port !== 0) return config;
  const port = await freePort(config.host);
  return { ...config, port, publicUrl: publicUrlGiven ? config.publicUrl : `http://localhost:${port}` };
}
