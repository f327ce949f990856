/**
 * DiagnosticReport (spec 2.3): two shapes. The search entry has no `id` and no `result`; the by-id
 * record has both. Dates are `YYYY-MM-DD` (spec 2.3: "string (date)"), the local date in the old
 * system's time zone, or the absent-reason object when the report has none.
 */
import * as v from 'valibot';
import type { FhirResource } from '../src/fhir/primitives.ts';
import {
  codingSchema,
  codings,
  dateSchema,
  displayedReferenceSchema,
  displayedReferences,
  legacyMeta,
  metaSchema,
  object,
  objects,
  referenceOf,
  referenceSchema,
  text,
  type Json,
} from './fhir-values.ts';
import { defineShape, type MapContext } from './legacy-shape.ts';

const DATA_ABSENT_REASON_URL = 'http://hl7.org/fhir/StructureDefinition/data-absent-reason';
const DATA_ABSENT_REASON_SYSTEM = 'http://terminology.hl7.org/CodeSystem/data-absent-reason';

/** The legacy stand-in for an unknown date (spec 2.3, `effectiveDateTime` "when unknown"). */
function unknownDate(): Json {
  return {
    valueQuantity: { extension: { url: DATA_ABSENT_REASON_URL, valueCode: 'unknown' } },
    dataAbsentReason: { coding: [{ system: DATA_ABSENT_REASON_SYSTEM, code: 'unknown', display: 'Unknown' }], text: 'Unknown' },
  };
}

const unknownDateSchema = v.strictObject({
  valueQuantity: v.strictObject({ extension: v.strictObject({ url: v.string(), valueCode: v.string() }) }),
  dataAbsentReason: v.strictObject({ coding: v.array(codingSchema), text: v.string() }),
});
const dateOrUnknownSchema = v.union([dateSchema, unknownDateSchema]);

function effectiveDate(report: FhirResource, context: MapContext): string | undefined {
  return context.time.date(report.effectiveDateTime ?? object(report.effectivePeriod)?.start);
}

/** Category codings keep `code` and `display` as null when the upstream leaves them out (spec 2.3). */
function category(report: FhirResource): Json[] {
  return objects(report.category).map((concept) => ({
    coding: objects(concept.coding).map((coding) => ({
      system: text(coding.system) ?? null,
      code: text(coding.code) ?? null,
      display: text(coding.display) ?? null,
    })),
    text: text(concept.text) ?? null,
  }));
}

/**
 * `presentedForm` as `{contentType, url}`. An attachment carried inline (`data`, as Synthea writes
 * notes) becomes a `data:` URL so nothing is dropped (docs/decisions.md).
 */
function presentedForm(report: FhirResource): Json[] {
  return objects(report.presentedForm).map((attachment) => {
    const contentType = text(attachment.contentType);
    const data = text(attachment.data);
    const inline = data ? `data:${contentType ?? 'application/octet-stream'};base64,${data}` : null;
    return { contentType: contentType ?? null, url: text(attachment.url) ?? inline };
  });
}

/** The fields both shapes share, in the order of the spec's table. */
function commonFields(report: FhirResource, context: MapContext): Json {
  const encounter = referenceOf(report.encounter);
  const subject = referenceOf(report.subject);
  return {
    meta: legacyMeta(report),
    category: category(report),
    encounter: encounter ? { reference: encounter } : null,
    presentedForm: presentedForm(report),
    status: text(report.status) ?? null,
    code: object(report.code) ? { coding: codings(report.code) } : null,
    subject: subject ? { reference: subject } : null,
    effectiveDateTime: effectiveDate(report, context) ?? unknownDate(),
    issued: context.time.date(report.issued) ?? unknownDate(),
    performer: displayedReferences(report.performer),
  };
}

const commonEntries = {
  meta: metaSchema,
  category: v.array(
    v.strictObject({
      coding: v.array(v.strictObject({ system: v.nullable(v.string()), code: v.nullable(v.string()), display: v.nullable(v.string()) })),
      text: v.nullable(v.string()),
    }),
  ),
  encounter: v.nullable(referenceSchema),
  presentedForm: v.array(v.strictObject({ contentType: v.nullable(v.string()), url: v.nullable(v.string()) })),
  status: v.nullable(v.string()),
  code: v.nullable(v.strictObject({ coding: v.array(codingSchema) })),
  subject: v.nullable(referenceSchema),
  effectiveDateTime: dateOrUnknownSchema,
  issued: dateOrUnknownSchema,
  performer: v.array(displayedReferenceSchema),
};

/** A DiagnosticReport inside a search Bundle: no `id`, no `result`. */
export const diagnosticReportSearchEntry = defineShape({
  name: 'DiagnosticReportSearchEntry',
  schema: v.strictObject({ resourceType: v.literal('DiagnosticReport'), ...commonEntries }),
  map: (report, context) => ({ resourceType: 'DiagnosticReport', ...commonFields(report, context) }),
});

/** A DiagnosticReport read by id: with `id` and its `result` Observation references. */
export const diagnosticReportRecord = defineShape({
  name: 'DiagnosticReport',
  schema: v.strictObject({
    resourceType: v.literal('DiagnosticReport'),
    id: v.nullable(v.string()),
    ...commonEntries,
    result: v.array(displayedReferenceSchema),
  }),
  map: (report, context) => ({
    resourceType: 'DiagnosticReport',
    id: report.id ?? null,
    ...commonFields(report, context),
    result: displayedReferences(report.result),
  }),
});
