/**
 * The same API on Express: `pnpm --dir examples/express-server start`, with the reference
 * server's environment variables.
 */
import { readHttpLimits } from '@agent-platform/example-server/app';
import { loadConfig } from '@agent-platform/example-server/config';
import { exitOnStartupError, onShutdown } from '@agent-platform/example-server/lifecycle';
import { createLogger } from '@agent-platform/example-server/logger';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { createExpressRouter, expressErrorHandler, expressNotFoundHandler, hardenNodeServer } from '@agent-platform/http/express';
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = loadConfig();
  logger.level = config.logLevel;
  const limits = readHttpLimits();
  const { platform, close } = await createServerPlatform(config, logger);
  const app = express();
  app.disable('x-powered-by');
  app.use(createExpressRouter({ platform, logger, bodyTimeoutMs: limits.requestTimeoutMs }));
  // Every answer in the API's shape: unknown paths, errors, and Node's own refusals (hardenNodeServer).
  app.use(expressNotFoundHandler());
  app.use(expressErrorHandler({ logger }));
  await platform.start();
  const server = hardenNodeServer(createServer(app), limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
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
