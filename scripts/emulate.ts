/**
 * `npm run emulate -- --recordings <dir> [--port 8090] [--host 127.0.0.1]`
 * Serves a recordings folder as if it were the legacy system (kit/emulator.ts), until
 * interrupted.
 */
import { EXIT_OK, parseCliArgs, required, runCli, UsageError } from '../kit/cli.ts';
import { startEmulator } from '../kit/emulator.ts';

const USAGE = 'usage: npm run emulate -- --recordings <dir> [--port 8090] [--host 127.0.0.1]';

runCli(USAGE, async () => {
  const args = parseCliArgs({
    recordings: { type: 'string' },
    port: { type: 'string', default: '8090' },
    host: { type: 'string', default: '127.0.0.1' },
  });
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${args.port} is not a port number`);
  const emulator = await startEmulator({
    recordingsDir: required(args.recordings, 'recordings'),
    port,
    host: args.host,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(`emulating ${emulator.recordings} recordings on ${emulator.url} (Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await emulator.close();
  return EXIT_OK;
});
