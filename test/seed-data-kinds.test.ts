/**
 * The generated seed data holds every resource kind the spec names, the awkward cases in every
 * patient, and enough variety and scale.
 */
import type {
  CareTeam,
  Condition,
  DiagnosticReport,
  DocumentReference,
  Immunization,
  Observation,
  Patient,
  Provenance,
  ServiceRequest,
} from '@medplum/fhirtypes';
import { describe, expect, it } from 'vitest';
import { generateSyntheticBundles } from '../src/embedded/seed/generate.ts';
import { patientBundles, entriesOf, resourcesOf, ofType, hasCoding } from './support/seed-fixtures.ts';

describe('generateSyntheticBundles: resource kinds', () => {
  it('every patient bundle has each kind the facade serves', () => {
    const kinds = ['AllergyIntolerance', 'CarePlan', 'CareTeam', 'Condition', 'Coverage', 'DiagnosticReport', 'DocumentReference', 'Encounter'];
    kinds.push('Goal', 'Immunization', 'Observation', 'Patient', 'Procedure', 'Provenance', 'ServiceRequest', 'Specimen');
    for (const bundle of patientBundles) {
      expect([...new Set(resourcesOf(bundle).map((r) => r.resourceType))].sort()).toEqual(kinds);
    }
  });

  it('observations of all four categories, all final with issued, effective, subject and encounter', () => {
    const observations = ofType('Observation');
    for (const category of ['laboratory', 'vital-signs', 'social-history', 'survey']) {
      expect(
        observations.some((o) => hasCoding(o.category, 'http://terminology.hl7.org/CodeSystem/observation-category', category)),
        category,
      ).toBe(true);
    }
    for (const o of observations) {
      expect(o).toMatchObject({
        status: 'final',
        issued: expect.any(String),
        effectiveDateTime: expect.any(String),
        subject: expect.any(Object),
        encounter: expect.any(Object),
      });
    }
    const smoking = observations.filter((o) => hasCoding([o.code], 'http://loinc.org', '72166-2'));
    expect(smoking.length).toBeGreaterThan(5);
    expect(smoking.every((o) => o.valueCodeableConcept?.coding?.[0]?.system === 'http://snomed.info/sct')).toBe(true);
    for (const loinc of ['55757-9', '44249-1', '69737-5']) {
      expect(
        observations.some((o) => hasCoding([o.code], 'http://loinc.org', loinc) && typeof o.valueInteger === 'number'),
        loinc,
      ).toBe(true);
    }
    expect(
      observations.some(
        (o: Observation) =>
          o.valueQuantity?.system === 'http://unitsofmeasure.org' &&
          hasCoding(o.category, 'http://terminology.hl7.org/CodeSystem/observation-category', 'laboratory'),
      ),
    ).toBe(true);
  });

  it('surveys happen several times a year per patient', () => {
    for (const bundle of patientBundles) {
      const surveys = ofType('Observation', resourcesOf(bundle)).filter((o) =>
        hasCoding(o.category, 'http://terminology.hl7.org/CodeSystem/observation-category', 'survey'),
      );
      expect(surveys.length).toBeGreaterThanOrEqual(12);
    }
  });

  it('lab reports are based on lab orders and point at lab observations; both presentedForm shapes exist', () => {
    const reports = ofType('DiagnosticReport').filter((r) => hasCoding(r.category, 'http://terminology.hl7.org/CodeSystem/v2-0074', 'LAB'));
    expect(reports.length).toBeGreaterThan(20);
    for (const r of reports) {
      expect(r.basedOn?.length).toBe(1);
      expect(r.result?.length).toBeGreaterThan(0);
      expect(r.conclusionCode?.[0]?.coding?.[0]?.system).toBe('http://snomed.info/sct');
      expect(r.issued).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-0[45]:00$/);
      expect(r.performer?.map((p) => p.reference?.split('/')[0])).toEqual(['Practitioner', 'Organization']);
    }
    expect(reports.some((r) => r.presentedForm?.[0]?.url && !r.presentedForm[0].data)).toBe(true);
    expect(reports.some((r) => r.presentedForm?.[0]?.data && !r.presentedForm[0].url)).toBe(true);
    const orders = ofType('ServiceRequest');
    expect(orders.some((o) => hasCoding(o.category, 'http://snomed.info/sct', '108252007') && o.intent === 'order' && o.status === 'completed')).toBe(true);
  });

  it('referrals are linked to encounters and carry a reason', () => {
    const referrals = ofType('ServiceRequest').filter((o: ServiceRequest) => hasCoding(o.category, 'http://snomed.info/sct', '3457005'));
    expect(referrals.length).toBeGreaterThan(0);
    for (const r of referrals) {
      expect(r.encounter?.reference).toMatch(/^urn:uuid:/);
      expect(r.reasonCode?.[0]).toMatchObject({ coding: [expect.any(Object)], text: expect.any(String) });
    }
  });

  it('encounters carry the fields the legacy API exposes', () => {
    const encounters = ofType('Encounter');
    for (const e of encounters) {
      expect(e).toMatchObject({
        status: 'finished',
        class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' },
        hospitalization: { dischargeDisposition: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/discharge-disposition', code: 'home' }] } },
        serviceProvider: { reference: expect.stringMatching(/^Organization\//) },
        location: [{ location: { reference: expect.stringMatching(/^Location\//) } }],
      });
      expect(e.participant?.[0]?.type?.[0]?.coding?.[0]).toMatchObject({ code: 'PPRF', display: 'primary performer' });
      expect(e.participant?.[0]?.individual?.display).toBeTruthy();
      expect(e.period?.end).toMatch(/T\d{2}:\d{2}:\d{2}-0[45]:00$/);
      expect(e.reasonCode?.length).toBe(1);
      expect(e.identifier?.length).toBe(1);
    }
    expect(encounters.some((e) => e.diagnosis?.some((d) => d.condition.reference?.startsWith('urn:uuid:')))).toBe(true);
  });

  it('care teams are active, proposed and inactive; provenance agents have ids and author/transmitter types', () => {
    const statuses = new Set(ofType('CareTeam').map((t) => t.status));
    expect([...statuses].sort()).toEqual(['active', 'inactive', 'proposed']);
    for (const p of ofType('Provenance') as Provenance[]) {
      expect(p.target.length).toBeGreaterThan(0);
      expect(p.agent.map((a) => [a.id, a.type?.coding?.[0]?.code])).toEqual([
        ['author', 'author'],
        ['transmitter', 'transmitter'],
      ]);
      for (const a of p.agent) expect(a.onBehalfOf).toMatchObject({ reference: expect.stringMatching(/^Organization\//), display: expect.any(String) });
    }
  });

  it('care plans, goals, coverage and allergies have their key fields', () => {
    for (const plan of ofType('CarePlan')) {
      expect(plan.text?.div).toMatch(/^<div xmlns="http:\/\/www.w3.org\/1999\/xhtml">.*<\/div>$/);
      expect(plan.intent).toBe('plan');
      expect(plan.category?.[0]?.coding?.[0]).toEqual({ system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan' });
    }
    expect(new Set(ofType('CarePlan').map((p) => p.status))).toEqual(new Set(['active', 'completed']));
    for (const goal of ofType('Goal')) {
      expect(goal.category?.[0]?.coding?.[0]).toMatchObject({ system: 'http://hl7.org/fhir/us/core/CodeSystem/us-core-category', code: 'sdoh' });
      expect(goal.lifecycleStatus).toBe('active');
      expect(goal.target?.[0]?.measure).toBeDefined();
    }
    for (const coverage of ofType('Coverage')) {
      expect(coverage.payor[0]?.reference).toBe('Organization/org-2');
      expect(coverage.class?.[0]).toMatchObject({ type: expect.any(Object), value: expect.any(String), name: expect.any(String) });
    }
    const allergies = ofType('AllergyIntolerance');
    expect(allergies.some((a) => a.verificationStatus?.coding?.[0]?.code === 'unconfirmed')).toBe(true);
    expect(allergies.some((a) => a.reaction?.[0]?.severity === 'moderate')).toBe(true);
  });
});

describe('generateSyntheticBundles: awkward cases (in every patient)', () => {
  it('a DiagnosticReport with no effective[x] and no issued', () => {
    for (const bundle of patientBundles) {
      const incomplete = ofType('DiagnosticReport', resourcesOf(bundle)).filter(
        (r: DiagnosticReport) => r.effectiveDateTime === undefined && r.effectivePeriod === undefined && r.issued === undefined,
      );
      expect(incomplete.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('a resolved Condition with abatementDateTime, and abatement only on resolved ones', () => {
    for (const bundle of patientBundles) {
      const conditions = ofType('Condition', resourcesOf(bundle)) as Condition[];
      const resolved = conditions.filter((c) => c.clinicalStatus?.coding?.[0]?.code === 'resolved');
      expect(resolved.length).toBeGreaterThanOrEqual(1);
      for (const c of resolved) expect(c.abatementDateTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      for (const c of conditions.filter((x) => x.clinicalStatus?.coding?.[0]?.code === 'active')) expect(c.abatementDateTime).toBeUndefined();
      const categories = new Set(conditions.map((c) => c.category?.[0]?.coding?.[0]?.code));
      expect(categories).toEqual(new Set(['problem-list-item', 'encounter-diagnosis', 'health-concern']));
    }
  });

  it('a not-done Immunization with statusReason text and coding', () => {
    for (const bundle of patientBundles) {
      const immunizations = ofType('Immunization', resourcesOf(bundle)) as Immunization[];
      const notDone = immunizations.filter((i) => i.status === 'not-done');
      expect(notDone.length).toBeGreaterThanOrEqual(1);
      for (const i of notDone)
        expect(i.statusReason).toMatchObject({ text: expect.any(String), coding: [expect.objectContaining({ code: expect.any(String) })] });
      expect(
        immunizations.filter((i) => i.status === 'completed' && i.vaccineCode.coding?.[0]?.system === 'http://hl7.org/fhir/sid/cvx').length,
      ).toBeGreaterThan(3);
    }
  });

  it('a CareTeam member that is an Organization, and one that is a Practitioner', () => {
    for (const bundle of patientBundles) {
      const members = (ofType('CareTeam', resourcesOf(bundle)) as CareTeam[]).flatMap((t) => t.participant ?? []).map((p) => p.member?.reference ?? '');
      expect(members.some((m) => m.startsWith('Organization/'))).toBe(true);
      expect(members.some((m) => m.startsWith('Practitioner/'))).toBe(true);
    }
  });

  it('notes of all three LOINC types on the same encounter, several times', () => {
    for (const bundle of patientBundles) {
      const kindsByEncounter = new Map<string, Set<string>>();
      for (const note of ofType('DocumentReference', resourcesOf(bundle)) as DocumentReference[]) {
        const encounter = note.context?.encounter?.[0]?.reference ?? '';
        expect(encounter).toMatch(/^urn:uuid:/);
        expect(note.status).toBe('current');
        expect(note.author?.[0]?.display).toBeTruthy();
        const text = atob(note.content[0]?.attachment.data ?? '');
        expect(text.length).toBeGreaterThan(50);
        const kinds = kindsByEncounter.get(encounter) ?? new Set<string>();
        kinds.add(note.type?.coding?.[0]?.code ?? '');
        kindsByEncounter.set(encounter, kinds);
      }
      const complete = [...kindsByEncounter.values()].filter((k) => ['11488-4', '34117-2', '11506-3'].every((c) => k.has(c)));
      expect(complete.length).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('generateSyntheticBundles: variety and scale', () => {
  it('patients differ in gender, age and problems', () => {
    const patients = patientBundles.map((b) => resourcesOf(b)[0] as Patient);
    expect(new Set(patients.map((p) => p.gender))).toEqual(new Set(['female', 'male']));
    expect(new Set(patients.map((p) => p.birthDate?.slice(0, 4))).size).toBeGreaterThanOrEqual(5);
    const problemSets = patientBundles.map((b) =>
      (ofType('Condition', resourcesOf(b)) as Condition[])
        .map((c) => c.code?.coding?.[0]?.code)
        .sort()
        .join(','),
    );
    expect(new Set(problemSets).size).toBe(patientBundles.length);
  });

  // Speed is measured by the benchmark script, never asserted here.
  it('scales to 200 patients (tens of thousands of resources)', () => {
    const big = generateSyntheticBundles({ patients: 200 });
    const total = big.reduce((n, b) => n + entriesOf(b).length, 0);
    expect(big).toHaveLength(201);
    expect(total).toBeGreaterThan(50_000);
  });
});
