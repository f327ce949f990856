/**
 * The requests file: one request a line, scenario names, and no token in it, ever.
 */
import { describe, expect, it } from 'vitest';
import { endpointName, recordingFileName, requestLine } from '../../kit/recordings.ts';
import { parseRequestsFile, RequestsFileError } from '../../kit/requests-file.ts';

describe('parseRequestsFile', () => {
  it('reads GET and POST lines, scenario names and the no-token flag, skipping comments and blank lines', () => {
    const requests = parseRequestsFile(`
# a comment
GET /api/DiagnosticReport?patient=1&start_date=2024-01-01   # dr 2024
get /Observation?patient=1&code=http://loinc.org|8302-2&_revinclude=Provenance:target
GET /Observation?patient=1 # observation-no-token no-token

POST /api/AlleryIntolerance/_search patient=1&code=x   #allergy
`);
    expect(requests.map(({ scenario: _scenario, ...rest }) => rest)).toEqual([
      {
        method: 'GET',
        path: '/api/DiagnosticReport',
        query: [
          ['patient', '1'],
          ['start_date', '2024-01-01'],
        ],
        withToken: true,
      },
      {
        method: 'GET',
        path: '/Observation',
        query: [
          ['patient', '1'],
          ['code', 'http://loinc.org|8302-2'],
          ['_revinclude', 'Provenance:target'],
        ],
        withToken: true,
      },
      { method: 'GET', path: '/Observation', query: [['patient', '1']], withToken: false },
      { method: 'POST', path: '/api/AlleryIntolerance/_search', query: [], requestBody: 'patient=1&code=x', withToken: true },
    ]);
    expect(requests.map((request) => request.scenario)).toEqual(['dr-2024', expect.stringMatching(/^[0-9a-f]{10}$/), 'observation-no-token', 'allergy']);
    expect(requestLine(requests[3]!)).toBe('POST /api/AlleryIntolerance/_search patient=1&code=x');
  });

  it('derives the same scenario for the same request, and another for another', () => {
    const [a, b, c] = parseRequestsFile('GET /Orders?patient=1\nGET /Orders?patient=1\nGET /Orders?patient=2\n');
    expect(a!.scenario).toBe(b!.scenario);
    expect(a!.scenario).not.toBe(c!.scenario);
  });

  it('refuses every bad line at once, tokens first of all', () => {
    const file =
      'GET /Orders?patient=1&access_token=secret-1\nDELETE /Orders\nGET Orders\nGET /x body\nPOST /api/A/_search access_token=secret-2\nGET /fine\nGET /y#frag\n';
    let message = '';
    try {
      parseRequestsFile(file);
    } catch (error) {
      expect(error).toBeInstanceOf(RequestsFileError);
      message = (error as Error).message;
    }
    expect(message.split('\n').map((line) => line.replace(/:.*/, ''))).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 7']);
    expect(message).toContain('line 1: holds an access_token');
    expect(message).not.toMatch(/secret/);
  });
});

describe('file names', () => {
  it('are the endpoint made file-name safe, then the scenario', () => {
    expect(endpointName('/api/DiagnosticReport')).toBe('api-DiagnosticReport');
    expect(endpointName('/DiagnosticReport/pdex-1.2')).toBe('DiagnosticReport-pdex-1.2');
    expect(endpointName('/')).toBe('root');
    expect(recordingFileName({ path: '/api/AlleryIntolerance/_search', scenario: 'post' })).toBe('api-AlleryIntolerance-_search__post.json');
  });
});
