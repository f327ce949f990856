/**
 * Order (spec 2.14): one per FHIR ServiceRequest, with the DiagnosticReports based on it (carried
 * by `_revinclude=DiagnosticReport:based-on`) supplying `conclusionCode` and `result`. Dates are
 * compact `YYYYMMDD`, the local date in the old system's time zone. See docs/decisions.md ("Orders").
 */
import * as v from 'valibot';
import { displayedReferenceSchema, displayedReferences, object, objects, referenceOf, text } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';

export const orderShape = defineShape({
  name: 'Order',
  schema: v.strictObject({
    resourceType: v.literal('Order'),
    code: v.nullable(v.string()),
    effectiveDateTime: v.nullable(v.pipe(v.string(), v.regex(/^\d{8}$/))),
    basedOn: v.nullable(v.string()),
    conclusionCode: v.nullable(v.string()),
    result: v.array(displayedReferenceSchema),
  }),
  map: (request, context) => {
    const self = request.id === undefined ? undefined : `ServiceRequest/${request.id}`;
    const reports =
      self === undefined
        ? []
        : context.referencing('DiagnosticReport', self).filter((report) => objects(report.basedOn).some((basedOn) => referenceOf(basedOn) === self));
    // One string field for what may be several codes on several reports: all of them, comma-joined.
    const conclusionCodes = reports
      .flatMap((report) => objects(report.conclusionCode))
      .flatMap((concept) => objects(concept.coding).map((coding) => text(coding.code)))
      .filter((code): code is string => code !== undefined);
    return {
      resourceType: 'Order',
      code: text(objects(object(request.code)?.coding)[0]?.code) ?? null,
      effectiveDateTime: context.time.date(request.authoredOn)?.replaceAll('-', '') ?? null,
      basedOn: self ?? null,
      conclusionCode: conclusionCodes.length > 0 ? [...new Set(conclusionCodes)].join(',') : null,
      result: reports.flatMap((report) => displayedReferences(report.result)),
    };
  },
});
