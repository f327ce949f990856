/**
 * Limits on JSON the service reads from outside (upstream answers, recordings of the old system).
 */

/**
 * Objects and arrays nested deeper than this are refused: FHIR bodies nest a dozen levels, and an
 * unbounded depth would let one answer exhaust the call stack (a `RangeError`) in whatever walks or
 * serializes the value: a mapper, `JSON.stringify`, the migration diff or its redaction.
 */
export const MAX_JSON_DEPTH = 256;
