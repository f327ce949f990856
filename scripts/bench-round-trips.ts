/** `npm run bench:round-trips`: only the round-trip table of `npm run bench`, printed (nothing written). */
import { measureRoundTrips, roundTripMarkdown } from './bench/round-trips.ts';

console.log(roundTripMarkdown(await measureRoundTrips()).join('\n'));
process.exit(0);
