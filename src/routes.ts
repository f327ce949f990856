/**
 * The route table: the single list of legacy operations (spec section 4.1). Each entry names the
 * upstream FHIR query, the mapper, the envelope and the auth policy; src/app.ts serves each one at
 * its documented path and at the same path with or without `/api` (docs/decisions.md).
 */
import { assessmentShape } from '../mappers/assessment.mapper.ts';
import { diagnosticReportRecord, diagnosticReportSearchEntry } from '../mappers/diagnostic-report.mapper.ts';
import { encounterShape } from '../mappers/encounter.mapper.ts';
import { observationShape } from '../mappers/observation.mapper.ts';
import { orderShape } from '../mappers/order.mapper.ts';
import { provenanceShape } from '../mappers/provenance.mapper.ts';
import type { ParamName } from './params.ts';
import type { Route, UpstreamQuery } from './route-types.ts';

const DATED_SEARCH: readonly ParamName[] = ['patient', 'start_date', 'end_date'];
const CODED_SEARCH: readonly ParamName[] = [...DATED_SEARCH, 'code', 'category', 'date'];

const diagnosticReportQuery: UpstreamQuery = { resourceType: 'DiagnosticReport', dateParam: 'date' };

/** Everything the serialized Encounter record needs, in the one round trip of the search. */
const encounterQuery: UpstreamQuery = {
  resourceType: 'Encounter',
  include: ['Encounter:patient', 'Encounter:location', 'Encounter:participant', 'Encounter:diagnosis'],
  revinclude: ['DocumentReference:encounter', 'ServiceRequest:encounter', 'Condition:encounter'],
};

export const ROUTES: readonly Route[] = [
  {
    name: 'DiagnosticReport.search', kind: 'search', method: 'GET', path: '/api/DiagnosticReport',
    summary: 'Search diagnostic reports', auth: 'optional', params: CODED_SEARCH,
    upstream: diagnosticReportQuery, shape: diagnosticReportSearchEntry, envelope: 'bundle', bundleType: 'searchset',
  },
  {
    name: 'DiagnosticReport.search-post', kind: 'search', method: 'POST', path: '/api/DiagnosticReport/_search',
    summary: 'Search diagnostic reports (form body)', auth: 'optional', params: CODED_SEARCH,
    upstream: diagnosticReportQuery, shape: diagnosticReportSearchEntry, envelope: 'bundle', bundleType: 'searchset',
  },
  {
    name: 'DiagnosticReport.read', kind: 'read', method: 'GET', path: '/api/DiagnosticReport/:id',
    summary: 'Read one diagnostic report', auth: 'token-required', params: ['patient'],
    upstream: diagnosticReportQuery, shape: diagnosticReportRecord, envelope: 'record',
  },
  {
    name: 'Encounter.search', kind: 'search', method: 'GET', path: '/Encounter',
    summary: 'Search encounters', auth: 'optional', params: ['patient'],
    upstream: encounterQuery, shape: encounterShape, envelope: 'bundle', bundleType: 'searchset',
  },
  {
    name: 'Encounter.read', kind: 'read', method: 'GET', path: '/Encounter/:id',
    summary: 'Read one encounter', auth: 'token-required', params: ['patient'],
    upstream: encounterQuery, shape: encounterShape, envelope: 'record',
  },
  {
    name: 'Assessments.search', kind: 'search', method: 'GET', path: '/api/Assessments',
    summary: 'Search assessments (survey observations)', auth: 'forbidden-without-token', params: DATED_SEARCH,
    upstream: { resourceType: 'Observation', dateParam: 'date', fixed: [['category', 'survey']], include: ['Observation:patient'] },
    shape: assessmentShape, envelope: 'array',
  },
  {
    name: 'Observation.search', kind: 'search', method: 'GET', path: '/Observation',
    summary: 'Search observations, optionally with their Provenance', auth: 'token-required',
    params: [...CODED_SEARCH, '_revinclude'],
    upstream: { resourceType: 'Observation', dateParam: 'date', include: ['Observation:patient'] },
    shape: observationShape, envelope: 'bundle', bundleType: 'search set', includedEntries: { Provenance: provenanceShape },
  },
  {
    name: 'Orders.search', kind: 'search', method: 'GET', path: '/Orders',
    summary: 'Search orders', auth: 'forbidden-without-token', params: DATED_SEARCH,
    upstream: { resourceType: 'ServiceRequest', dateParam: 'authored', revinclude: ['DiagnosticReport:based-on'] },
    shape: orderShape, envelope: 'array',
  },
];
