/**
 * Order (spec 2.14): one per FHIR ServiceRequest, with the DiagnosticReports based on it (carried
 * by `_revinclude=DiagnosticReport:based-on`) supplying `conclusionCode` and `result`. Dates are
 * compact `YYYYMMDD`. See docs/decisions.md ("Orders").
 */
import * as v from 'valibot';
import { datePart, object, objects, referenceOf, text, withDefined } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';

export const orderShape = defineShape({
  name: 'Order',
  schema: v.strictObject({
    resourceType: v.literal('Order'),
    code: v.string(),
    effectiveDateTime: v.union([v.pipe(v.string(), v.regex(/^\d{8}$/)), v.literal('')]),
    basedOn: v.string(),
    conclusionCode: v.string(),
    result: v.array(v.strictObject({ reference: v.string(), display: v.optional(v.string()) })),
  }),
  map: (request, context) => {
    const self = `ServiceRequest/${request.id ?? ''}`;
    const reports = context.referencing('DiagnosticReport', self).filter((report) =>
      objects(report.basedOn).some((basedOn) => referenceOf(basedOn) === self),
    );
    const conclusion = reports.flatMap((report) => objects(report.conclusionCode)).flatMap((concept) => objects(concept.coding))[0];
    return {
      resourceType: 'Order',
      code: text(objects(object(request.code)?.coding)[0]?.code) ?? '',
      effectiveDateTime: datePart(request.authoredOn)?.replaceAll('-', '') ?? '',
      basedOn: self,
      conclusionCode: text(conclusion?.code) ?? '',
      result: reports.flatMap((report) =>
        objects(report.result).flatMap((item) => {
          const reference = referenceOf(item);
          return reference ? [withDefined({ reference, display: text(item.display) })] : [];
        }),
      ),
    };
  },
});
