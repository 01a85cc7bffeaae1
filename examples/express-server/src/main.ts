/**
 * The same API on Express: `pnpm --dir examples/express-server start`, with the reference
 * server's environment variables.
 */
import { loadConfig } from '@agent-platform/example-server/config';
import { exitOnStartupError, onShutdown } from '@agent-platform/example-server/lifecycle';
import { createLogger } from '@agent-platform/example-server/logger';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { createExpressRouter } from '@agent-platform/http/express';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = loadConfig();
  logger.level = config.logLevel;
  const { platform, close } = await createServerPlatform(config, logger);
  const app = express();
  app.disable('x-powered-by');
  app.use(createExpressRouter({ platform, logger }));
  app.use((_request, response) => {
    response.status(404).json({ detail: 'Not Found' });
  });
  await platform.start();
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ publicUrl: config.publicUrl }, `Server listening at http://${config.host}:${port}`);
  onShutdown(logger, async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
  });
} catch (error) {
  exitOnStartupError(logger, error);
}
