/**
 * Upstream round trips of every legacy operation behind each personality of the test harness
 * (test/support/personalities: real servers' documented behaviours emulated in front of the
 * embedded FHIR server), measured with the service's own `check-upstream` for one patient. Read by
 * people in docs/performance.md: a fallback shows as more round trips, never as a changed answer
 * (test/upstream-matrix.test.ts holds the answers identical).
 */
import { checkUpstream } from '../../src/entry/node/check-upstream/run.ts';
import { PERSONALITIES } from '../../test/support/personalities/catalog.ts';
import { startPersonalityProxy } from '../../test/support/personalities/personality-proxy.ts';
import { startGeneratedUpstream } from '../../test/support/personalities/generated-upstream.ts';

export interface RoundTripTable {
  personalities: string[];
  /** Per operation, the round trips behind each personality (in `personalities` order); `—` where it was not served. */
  rows: { operation: string; trips: string[] }[];
}

export async function measureRoundTrips(): Promise<RoundTripTable> {
  const embedded = await startGeneratedUpstream();
  try {
    const patients = (await (await fetch(`${embedded.baseUrl}/Patient?_count=1`)).json()) as { entry: { resource: { id: string } }[] };
    const patient = patients.entry[0]!.resource.id;
    const byOperation = new Map<string, string[]>();
    const names: string[] = [];
    for (const personality of [{ name: 'embedded (plain)' }, ...PERSONALITIES]) {
      const proxy = 'reproduces' in personality ? await startPersonalityProxy(personality, embedded.baseUrl) : undefined;
      try {
        const report = await checkUpstream({
          url: proxy?.baseUrl ?? embedded.baseUrl,
          patient,
          token: 'bench-round-trips-token',
          settings: 'facadeEnv' in personality ? personality.facadeEnv : {},
        });
        names.push(personality.name);
        for (const row of report.rows) {
          const trips = byOperation.get(row.operation) ?? [];
          trips.push(row.outcome === 'not-servable' ? '—' : String(row.roundTrips));
          byOperation.set(row.operation, trips);
        }
      } finally {
        await proxy?.close();
      }
    }
    return { personalities: names, rows: [...byOperation].map(([operation, trips]) => ({ operation, trips })) };
  } finally {
    await embedded.close();
  }
}

/** The table as Markdown: one row per operation, one column per personality. */
export function roundTripMarkdown(table: RoundTripTable): string[] {
  return [
    `| operation | ${table.personalities.join(' | ')} |`,
    `|---|${table.personalities.map(() => '---:').join('|')}|`,
    ...table.rows.map((row) => `| ${row.operation} | ${row.trips.join(' | ')} |`),
  ];
}
