/**
 * One laboratory work-up: the order (ServiceRequest), the drawn Specimen, one Observation per
 * analyte and the DiagnosticReport that ties them together (basedOn the order, result the
 * observations, conclusionCode normal/abnormal).
 */
import type { Attachment, DiagnosticReport, Observation, ServiceRequest, Specimen } from '@medplum/fhirtypes';
import { base64Text, dateTime, instant, type PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import { CLINIC, LAB_LOCATION, locationRef, organizationRef, practitionerRef } from './shared-directory.js';
import { observationShell, quantity } from './observation-resources.js';
import { code, coding, concept, PROFILE, SYSTEM } from './terminology.js';
import { HOUR_MS, MINUTE_MS } from './time.js';
import { LAB_ORDER_CATEGORY } from './vocabulary-clinical.js';
import { INTERPRETATION, LAB_PANELS, REPORT_CONCLUSION, SPECIMEN, type Analyte, type PanelKey } from './vocabulary-observations.js';

export interface LabWorkup {
  readonly observationUrns: string[];
  readonly reportUrn: string;
  readonly abnormal: boolean;
}

/** Value for one analyte: from the problem-specific range when one applies, else around normal. */
function drawValue(ctx: PatientContext, analyte: Analyte, shifted: readonly [number, number] | undefined): number {
  if (shifted) return ctx.rng.decimal(shifted[0], shifted[1], analyte.decimals);
  const span = analyte.high - analyte.low;
  // Mostly in range, occasionally just outside it, as real panels are.
  return ctx.rng.decimal(analyte.low - span * 0.08, analyte.high + span * 0.08, analyte.decimals);
}

export function addLabWorkup(
  ctx: PatientContext,
  visit: PlannedVisit,
  encounterUrn: string,
  panelKey: PanelKey,
  shifts: Readonly<Record<string, readonly [number, number]>>,
): LabWorkup {
  const { bundle, rng } = ctx;
  const panel = LAB_PANELS[panelKey];
  const collectedMs = visit.startMs + 20 * MINUTE_MS;
  const issuedMs = collectedMs + rng.int(4, 30) * HOUR_MS + rng.int(0, 3_599_999);
  const accession = `ACC-${ctx.profile.number}-${visit.index + 1}-${panelKey.toUpperCase()}`;
  const requester = practitionerRef(visit.practitioner);

  const orderUrn = bundle.reserve();
  const specimenUrn = bundle.reserve();

  const order: ServiceRequest = {
    resourceType: 'ServiceRequest',
    meta: { profile: [PROFILE.serviceRequest] },
    identifier: [{ system: SYSTEM.orderId, value: `ORD-${ctx.profile.number}-${visit.index + 1}-${panelKey.toUpperCase()}` }],
    status: 'completed',
    intent: 'order',
    category: [concept(LAB_ORDER_CATEGORY)],
    code: concept(panel.code),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    occurrenceDateTime: dateTime(collectedMs),
    authoredOn: dateTime(visit.startMs + 10 * MINUTE_MS),
    requester,
    performer: [organizationRef(CLINIC)],
    locationReference: [locationRef(LAB_LOCATION)],
    specimen: [{ reference: specimenUrn }],
  };
  bundle.add(order, orderUrn);

  const specimen: Specimen = {
    resourceType: 'Specimen',
    meta: { profile: [PROFILE.specimen] },
    accessionIdentifier: { system: SYSTEM.accession, value: accession },
    status: 'available',
    type: concept(panel.specimen),
    subject: ctx.patientRef,
    receivedTime: dateTime(collectedMs + rng.int(30, 180) * MINUTE_MS),
    request: [{ reference: orderUrn }],
    collection: {
      collector: requester,
      collectedDateTime: dateTime(collectedMs),
      method: concept(SPECIMEN.collectionMethod),
      bodySite: concept(rng.pick(SPECIMEN.bodySites)),
    },
    container: [
      {
        identifier: [{ system: SYSTEM.accession, value: `${accession}-T1` }],
        description: panel.specimen.code === '119364003' ? 'Serum separator tube' : 'Lavender-top EDTA tube',
        type: concept(SPECIMEN.container),
        capacity: { value: 5, unit: 'mL', system: SYSTEM.ucum, code: 'mL' },
      },
    ],
  };
  bundle.add(specimen, specimenUrn);

  let abnormal = false;
  const lines: string[] = [];
  const results = panel.analytes.map((analyte) => {
    const value = drawValue(ctx, analyte, shifts[analyte.code.code]);
    const flag = value > analyte.high ? INTERPRETATION.high : value < analyte.low ? INTERPRETATION.low : INTERPRETATION.normal;
    if (flag !== INTERPRETATION.normal) abnormal = true;
    lines.push(`${analyte.code.display}: ${value} ${analyte.unit} (ref ${analyte.low}-${analyte.high}) ${flag.code}`);
    const obs: Observation = observationShell(ctx, encounterUrn, 'laboratory', analyte.code, collectedMs, [PROFILE.observationLab]);
    obs.issued = instant(issuedMs);
    obs.basedOn = [{ reference: orderUrn }];
    obs.specimen = { reference: specimenUrn };
    obs.valueQuantity = quantity(analyte, value);
    obs.interpretation = [concept(flag)];
    obs.referenceRange = [{ low: quantity(analyte, analyte.low), high: quantity(analyte, analyte.high) }];
    return { reference: bundle.add(obs), display: analyte.code.display };
  });

  const conclusion = abnormal ? REPORT_CONCLUSION.abnormal : REPORT_CONCLUSION.normal;
  const reportText = [`${panel.code.display}`, `Collected: ${dateTime(collectedMs)}`, ...lines, `Conclusion: ${conclusion.display}`].join('\n');
  // Some labs send a rendered PDF by URL, others inline text; the facade must pass both through.
  const presentedForm: Attachment = rng.chance(0.5)
    ? { contentType: 'application/pdf', url: `https://reports.riverbend.example.org/lab/${accession}.pdf`, title: panel.code.display }
    : { contentType: 'text/plain', data: base64Text(reportText), title: panel.code.display };

  const report: DiagnosticReport = {
    resourceType: 'DiagnosticReport',
    meta: { profile: [PROFILE.reportLab] },
    identifier: [{ system: SYSTEM.accession, value: accession }],
    basedOn: [{ reference: orderUrn }],
    status: 'final',
    category: [concept(code(SYSTEM.diagnosticServiceSection, 'LAB', 'Laboratory'))],
    code: concept(panel.code),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    effectiveDateTime: dateTime(collectedMs),
    issued: instant(issuedMs),
    performer: [requester, organizationRef(CLINIC)],
    specimen: [{ reference: specimenUrn }],
    result: results,
    conclusion: abnormal ? 'One or more results outside the reference range.' : 'All results within reference range.',
    conclusionCode: [{ coding: [coding(conclusion)], text: conclusion.display }],
    presentedForm: [presentedForm],
  };
  const reportUrn = bundle.add(report);
  return { observationUrns: results.map((r) => r.reference), reportUrn, abnormal };
}
