/**
 * Node entry: `npm start [-- --data DIR]`. Reads the environment once, starts the service, stops
 * cleanly on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig } from '../config.ts';
import { jsonAuditSink } from '../audit.ts';
import { jsonLogger } from '../log.ts';
import { StartError, startService } from '../node-service.ts';

const logger = jsonLogger();
try {
  const { values } = parseArgs({ options: { data: { type: 'string' } } });
  const service = await startService(parseConfig(process.env), { dataDir: values.data, logger, audit: jsonAuditSink() });
  // Origin and path only: a configured URL may carry credentials in its user-info or query.
  const upstream = new URL(service.upstreamUrl);
  logger('info', 'listening', { url: service.url, upstream: `${upstream.origin}${upstream.pathname}` });
  const stop = () => void service.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  // Mistakes in how the service was started (configuration, arguments, the --data folder) are
  // reported in one line; anything else is a bug and keeps its stack.
  console.error(isStartMistake(error) ? `Cannot start: ${error.message}` : error);
  process.exit(1);
}

function isStartMistake(error: unknown): error is Error {
  if (error instanceof ConfigError || error instanceof StartError) return true;
  const code = (error as { code?: unknown })?.code;
  return error instanceof Error && typeof code === 'string' && /^(ENOENT|ENOTDIR|EACCES|EADDRINUSE|ERR_PARSE_ARGS_)/.test(code);
}
