/**
 * The redaction rules, one by one, on small bodies: what is replaced (and by which kind of
 * pseudonym), what is kept, and where strings holding JSON are looked into.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../kit/redaction.ts';

const redactor = createRedactor('redaction-rules-test-key');
const p = redactor.pseudonym;
const redacted = (body: unknown) => JSON.parse(redactor.redactBodyText(typeof body === 'string' ? body : JSON.stringify(body))) as unknown;

/** Every string of the redacted body must be one of `kept` or a pseudonym; none of `secrets` may be anywhere in its text. */
function expectRedacted(body: unknown, secrets: string[]): string {
  const text = redactor.redactBodyText(JSON.stringify(body));
  for (const secret of secrets) expect(text, secret).not.toContain(secret);
  return text;
}

describe('redaction rules', () => {
  it('replaces Coverage member ids (both spellings) and plan and group numbers and names', () => {
    const coverage = {
      resourceType: 'Coverage',
      id: 'c1',
      subscriberId: 'HM123456789',
      subscriber_id: 'HM987654321',
      Class: [
        { type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }] }, value: 'GRP-4471', name: 'Acme Staff group' },
      ],
      class: [{ type: { text: 'plan' }, value: 'PLN-22', name: 'Acme Gold' }],
    };
    expectRedacted(coverage, ['HM123456789', 'HM987654321', 'GRP-4471', 'Acme Staff group', 'PLN-22', 'Acme Gold']);
    expect(redacted(coverage)).toMatchObject({
      id: 'c1',
      subscriberId: p('id', 'HM123456789'),
      subscriber_id: p('id', 'HM987654321'),
      Class: [{ type: coverage.Class[0]!.type, value: p('id', 'GRP-4471'), name: p('text', 'Acme Staff group') }],
    });
  });

  it('replaces every string of the Encounter record but its codes, dates and status', () => {
    const record = {
      patient_name: 'Jane Doe',
      identifier: 'ENC-77',
      name: 'Follow-up for Jane',
      code: '185349003',
      code_system: 'http://snomed.info/sct',
      code_system_name: 'SNOMED CT',
      admit_date: '2024-01-02',
      discharge_date: null,
      location: 'Room 12, Jane Doe ward',
      encounter_diagnosis: 'Jane’s asthma',
      performer: 'Dr Who',
      consult_note: null,
      history_and_physical_note: 'HPI: Jane…',
      reason_for_referral: 'Referral: Jane',
      progress_note: '',
      author: 'Dr Who',
      status: 'finished',
      unexpected: 'Jane again',
    };
    const encounter = {
      resourceType: 'Encounter',
      id: 'e1',
      identifier: [{ type: { text: 'Encounter record' }, system: null, value: JSON.stringify(record) }],
    };
    const bundle = { resourceType: 'Bundle', type: 'searchset', entry: [{ full_url: '/Encounter/e1', resource: encounter }] };
    expectRedacted(bundle, ['Jane', 'ENC-77', 'Dr Who', 'Room 12']);
    const value = (redacted(bundle) as { entry: { resource: { identifier: { value: string }[] } }[] }).entry[0]!.resource.identifier[0]!.value;
    expect(JSON.parse(value)).toEqual({
      ...record,
      patient_name: p('name', 'Jane Doe'),
      identifier: p('id', 'ENC-77'),
      name: p('text', record.name),
      location: p('text', record.location),
      encounter_diagnosis: p('text', record.encounter_diagnosis),
      performer: p('name', 'Dr Who'),
      history_and_physical_note: p('text', record.history_and_physical_note),
      reason_for_referral: p('text', record.reason_for_referral),
      author: p('name', 'Dr Who'),
      unexpected: p('text', 'Jane again'),
    });
    // An Encounter identifier that holds no record is an identifier value.
    expect(redacted({ resourceType: 'Encounter', identifier: [{ value: 'V-1' }] })).toEqual({
      resourceType: 'Encounter',
      identifier: [{ value: p('id', 'V-1') }],
    });
  });

  it('redacts free text as text even when it parses as JSON, and looks into the Assessment meta only', () => {
    const observation = {
      resourceType: 'Observation',
      valueString: '{"patient":"Jane Doe"}',
      note: [{ text: '["Jane Doe"]' }],
      identifier: [{ value: '{"mrn":"123-45"}' }],
    };
    expectRedacted(observation, ['Jane', '123-45']);
    expect(redacted(observation)).toEqual({
      resourceType: 'Observation',
      valueString: p('text', observation.valueString),
      note: [{ text: p('text', '["Jane Doe"]') }],
      identifier: [{ value: p('id', '{"mrn":"123-45"}') }],
    });
    const meta = JSON.stringify({ lastUpdated: '2024-01-02T03:04:05Z', versionId: '3', tag: [{ display: 'Jane Doe' }] });
    const assessment = [{ resourceType: 'Assessment', meta, subject: { reference: 'Patient/1', display: 'Jane Doe' } }];
    expectRedacted(assessment, ['Jane']);
    const [result] = redacted(assessment) as { meta: string }[];
    expect(JSON.parse(result!.meta)).toEqual({ lastUpdated: '2024-01-02T03:04:05Z', versionId: '3', tag: [{ display: p('name', 'Jane Doe') }] });
    const plainMeta = [{ resourceType: 'Assessment', meta: ' {"lastUpdated" : "2024"}' }];
    expect(redactor.redactBodyText(JSON.stringify(plainMeta))).toBe(JSON.stringify(plainMeta)); // nothing to redact: kept as written
  });

  it('redacts error messages, and bodies that are a string or an array of strings', () => {
    const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: 'no patient Jane Doe' }] };
    expect(redacted(outcome)).toEqual({ ...outcome, issue: [{ ...outcome.issue[0], diagnostics: p('text', 'no patient Jane Doe') }] });
    expect(redacted({ error: 'invalid_request', message: 'Jane Doe is not yours', error_description: 'Jane' })).toEqual({
      error: p('text', 'invalid_request'),
      message: p('text', 'Jane Doe is not yours'),
      error_description: p('text', 'Jane'),
    });
    expect(redacted('"Jane Doe"')).toBe(p('text', 'Jane Doe'));
    expect(redacted(['Jane', 'Doe', 3])).toEqual([p('text', 'Jane'), p('text', 'Doe'), 3]);
  });

  it('redacts names, addresses and contact points written as extension values, name prefixes and suffixes, markdown', () => {
    const patient = {
      resourceType: 'Patient',
      name: [{ prefix: ['Lady'], given: ['Jane'], family: 'Doe', suffix: ['PhD'] }],
      extension: [
        { url: 'http://example.org/mother', valueHumanName: { family: 'Roe', given: ['Mary'], prefix: ['Mrs'] } },
        { url: 'http://example.org/home', valueAddress: { line: ['1 Main St'], city: 'Springfield', district: 'North', postalCode: '12345', country: 'US' } },
        { url: 'http://example.org/contact', valueContactPoint: { system: 'email', value: 'jane@example.org' } },
        { url: 'http://example.org/note', valueMarkdown: '**Jane** prefers mornings' },
      ],
    };
    expectRedacted(patient, ['Lady', 'Jane', 'Doe', 'PhD', 'Roe', 'Mary', 'Mrs', '1 Main St', 'Springfield', 'North', '12345', 'jane@example.org']);
    const result = redacted(patient) as typeof patient;
    expect(result.name[0]).toEqual({ prefix: [p('name', 'Lady')], given: [p('name', 'Jane')], family: p('name', 'Doe'), suffix: [p('name', 'PhD')] });
    expect(result.extension[1]!.valueAddress).toEqual({
      line: [p('address', '1 Main St')],
      city: p('city', 'Springfield'),
      district: p('address', 'North'),
      postalCode: p('postal', '12345'),
      country: 'US',
    });
    expect(result.extension[2]!.valueContactPoint).toEqual({ system: 'email', value: p('email', 'jane@example.org') });
    expect(result.extension.map((extension) => extension.url)).toEqual(patient.extension.map((extension) => extension.url));
  });

  it('redacts data: URLs whatever their case and leading spaces, and leaves other URLs', () => {
    const report = { presentedForm: [{ url: '  DATA:text/plain;base64,SmFuZQ==' }, { url: 'Data:text/html,Jane' }, { url: 'https://example.org/r/1' }] };
    expect(redacted(report)).toEqual({
      presentedForm: [{ url: p('data', report.presentedForm[0]!.url) }, { url: p('data', 'Data:text/html,Jane') }, { url: 'https://example.org/r/1' }],
    });
  });
});
