/**
 * The endpoint of a request, as the report groups requests and gives its verdicts: the method and
 * the path with ids generalized, `GET /api/DiagnosticReport/:id`. A site's traffic reads thousands
 * of records by id; they are one endpoint to the team deciding on the migration.
 *
 * The kit knows no route table (it imports nothing from the service), so an id is recognized by its
 * place and its look: a path segment right after a resource type (a segment starting with a capital
 * letter, `/Encounter/12`) unless it is an operation (`_search`, `$everything`); or any segment made
 * of digits, or of hex digits and dashes at least 16 long (a UUID), wherever it is.
 */
import { escapeControls } from './recordings.ts';
import type { RequestSpec } from './requests-file.ts';

const NUMERIC = /^\d+$/;
const UUID_LIKE = /^(?=.*\d)[0-9a-fA-F-]{16,}$/;

export function endpointOf(request: Pick<RequestSpec, 'method' | 'path'>): string {
  const segments = request.path.split('/');
  const generalized = segments.map((segment, index) => {
    if (segment === '') return segment;
    const previous = segments[index - 1] ?? '';
    const afterResourceType = /^[A-Z]/.test(previous) && !/^[_$]/.test(segment);
    return afterResourceType || NUMERIC.test(segment) || UUID_LIKE.test(segment) ? ':id' : segment;
  });
  // The path comes from a requests file or an access log: it must not forge or hide a report line.
  return escapeControls(`${request.method} ${generalized.join('/')}`);
}
