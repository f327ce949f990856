/**
 * A suite that runs only where what it needs is there. Where it is not, the suite is one test that
 * vitest reports as skipped with the reason after its name, rather than a suite of tests skipped
 * with nothing said, or a console line printed apart from the report.
 */
import { describe, it } from 'vitest';

/** `describe` when `reasonToSkip` is undefined; else a single skipped test that gives the reason. */
export function describeUnless(reasonToSkip: string | undefined): (name: string, body: () => void) => void {
  if (reasonToSkip === undefined) return (name, body) => describe(name, body);
  return (name) => it(name, ({ skip }) => skip(reasonToSkip));
}
