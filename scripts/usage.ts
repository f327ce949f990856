/**
 * `--help` (or `-h`) on a script that takes no other arguments: prints its usage on stdout and exits 0;
 * anything else unknown is a mistake, said in one line, exit 2 (as the migration kit's commands).
 */
export function handleArgs(usage: string, known: readonly string[] = []): string[] {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const unknown = args.filter((arg) => !known.includes(arg));
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}\n${usage}\n`);
    process.exit(2);
  }
  return args;
}
