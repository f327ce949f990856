/**
 * The facade's error code in an OperationOutcome answer (`issue[0].details.text`, src/errors.ts):
 * tests that must tell one 401 or 403 from another read it here.
 */
import { expect } from 'vitest';

/** Asserts the status and the error code of an OperationOutcome answer. */
export async function expectErrorCode(response: Response, status: number, code: string): Promise<void> {
  const body = (await response.json()) as { resourceType?: string; issue?: { details?: { text?: string } }[] };
  expect({ status: response.status, resourceType: body.resourceType, code: body.issue?.[0]?.details?.text }).toEqual({
    status,
    resourceType: 'OperationOutcome',
    code,
  });
}
