/**
 * How `check-upstream` prints its report: a table for a person, or JSON (`--json`) for a machine.
 */
import type { CheckReport, OperationRow } from './run.ts';

const HEADINGS = ['OPERATION', 'REQUEST', 'ROUND TRIPS', 'TIME', 'RESULT'] as const;

/** The result column: `native`, `fallback: …`, `NOT SERVABLE: …`, `no record to read: …`. */
export function resultText(row: OperationRow): string {
  switch (row.outcome) {
    case 'native':
      return 'served natively';
    case 'fallback':
      return `served with fallback: ${row.fallbacks.join('; ')}`;
    case 'not-servable':
      return `NOT SERVABLE: ${row.reason ?? `status ${row.status ?? '?'}`}`;
    case 'no-record':
      return row.reason ?? 'no record to read';
  }
}

function roundTripsText(row: OperationRow): string {
  if (row.outcome === 'no-record') return '-';
  return row.throttled > 0 ? `${row.roundTrips} (${row.throttled} throttled)` : String(row.roundTrips);
}

export function formatTable(report: CheckReport): string {
  const statement = report.capabilityStatement;
  const about = statement.found
    ? `${statement.software ?? 'server'}${statement.fhirVersion === undefined ? '' : `, FHIR ${statement.fhirVersion}`}, ${statement.resourceTypes} resource types`
    : 'none found (includes and search parameters are learned by asking)';
  const counts = countOutcomes(report.rows);
  const lines = [
    `Upstream: ${report.upstream}`,
    `CapabilityStatement: ${about}`,
    ...(statement.unlisted.length > 0 ? [`  not listed there: ${statement.unlisted.join(', ')}`] : []),
    `Patient: ${report.patient}`,
    '',
  ];
  const cells = report.rows.map((row) => [
    row.operation,
    row.request,
    roundTripsText(row),
    row.outcome === 'no-record' ? '-' : `${row.ms} ms`,
    resultText(row),
  ]);
  const widths = HEADINGS.map((heading, column) => Math.max(heading.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (cell: readonly string[]) =>
    cell
      .map((text, column) => (column === 2 || column === 3 ? text.padStart(widths[column]!) : column === cell.length - 1 ? text : text.padEnd(widths[column]!)))
      .join('  ');
  lines.push(line(HEADINGS), ...cells.map(line), '');
  lines.push(
    `${report.rows.length} operations: ${counts.native} served natively, ${counts.fallback} with a fallback, ${counts['not-servable']} not servable` +
      (counts['no-record'] > 0 ? `, ${counts['no-record']} with no record to read` : ''),
  );
  return `${lines.join('\n')}\n`;
}

export function formatJson(report: CheckReport): string {
  return `${JSON.stringify({ ...report, rows: report.rows.map((row) => ({ ...row, result: resultText(row) })) }, null, 2)}\n`;
}

function countOutcomes(rows: readonly OperationRow[]): Record<OperationRow['outcome'], number> {
  const counts = { native: 0, fallback: 0, 'not-servable': 0, 'no-record': 0 };
  for (const row of rows) counts[row.outcome] += 1;
  return counts;
}
