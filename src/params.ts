/**
 * The legacy query parameters (spec section 4.2), each with its valibot schema. Routes name the
 * ones they take; `parseLegacyParams` validates a request's query against that list.
 */
import * as v from 'valibot';
import { FacadeError } from './errors.ts';

/**
 * A FHIR id. The spec says ids are numbers; FHIR servers also hand out ids such as `pdex-Patient`,
 * and accepting them changes nothing for a client that only sends numbers (docs/decisions.md).
 */
export const fhirIdSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9\-.]{1,64}$/, 'must be a record id (digits, letters, "-" or ".", at most 64)'));

const isoDateSchema = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'), v.check(isCalendarDate, 'must be a real calendar date'));

/** `code` and `category`: bare `<code>` or `<system>|<code>`, as FHIR token search takes them. */
const tokenSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(512, 'must be at most 512 characters'),
  v.regex(/^[^|\p{Cc}]*\|?[^|\p{Cc}]+$/u, 'must be <code> or <system>|<code>'),
);

const prefixedDateSchema = v.pipe(
  v.string(),
  v.regex(/^(lt|gt|le|ge)?\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD with an optional prefix lt, gt, le or ge'),
  v.check((value) => isCalendarDate(value.replace(/^[a-z]{2}/, '')), 'must be a real calendar date'),
);

/** The parameter catalog: every legacy query parameter the service understands. */
export const PARAMETERS = {
  patient: { schema: fhirIdSchema, repeatable: false, description: 'Patient id' },
  start_date: { schema: isoDateSchema, repeatable: false, description: 'Start of the dataset (inclusive), YYYY-MM-DD' },
  end_date: { schema: isoDateSchema, repeatable: false, description: 'End of the dataset (inclusive), YYYY-MM-DD' },
  code: { schema: tokenSchema, repeatable: false, description: 'Code of the record, bare or system|code' },
  category: { schema: tokenSchema, repeatable: false, description: 'Category, bare or system|code' },
  date: { schema: prefixedDateSchema, repeatable: true, description: 'Date with an optional prefix lt, gt, le, ge; may repeat (ANDed)' },
  status: {
    schema: v.picklist(['proposed', 'active', 'suspended', 'inactive', 'entered-in-error'], 'must be a care team status'),
    repeatable: false,
    description: 'Care team status',
  },
  _revinclude: {
    schema: v.literal('Provenance:target', 'only Provenance:target is supported'),
    repeatable: false,
    description: 'Provenance:target adds the Provenance records of each result',
  },
} as const;

export type ParamName = keyof typeof PARAMETERS;

/** Validated legacy parameters of one request; `date` keeps every occurrence. */
export interface LegacyParams {
  patient?: string;
  start_date?: string;
  end_date?: string;
  code?: string;
  category?: string;
  date?: string[];
  status?: string;
  _revinclude?: string;
}

/**
 * Validates the parameters a route takes. Parameters the route does not take are ignored, as the
 * old service did (docs/decisions.md); a bad value, or a repeat of a single-valued one, is a 400.
 */
export function parseLegacyParams(query: URLSearchParams, accepted: readonly ParamName[]): LegacyParams {
  const params: LegacyParams = {};
  for (const name of accepted) {
    const values = query.getAll(name);
    if (values.length === 0) continue;
    const definition = PARAMETERS[name];
    if (values.length > 1 && !definition.repeatable) {
      throw new FacadeError('bad-parameter', `${name} may be given only once`);
    }
    for (const value of values) {
      const result = v.safeParse(definition.schema, value);
      if (!result.success) throw new FacadeError('bad-parameter', `${name} ${result.issues[0].message}`);
    }
    if (name === 'date') params.date = values;
    else params[name] = values[0];
  }
  if (params.start_date && params.end_date && params.start_date > params.end_date) {
    throw new FacadeError('bad-parameter', 'start_date must not be after end_date');
  }
  return params;
}

/** Validates a path id (`/DiagnosticReport/:id`). */
export function parseRecordId(id: string): string {
  const result = v.safeParse(fhirIdSchema, id);
  if (!result.success) throw new FacadeError('bad-parameter', `id ${result.issues[0].message}`);
  return result.output;
}

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
