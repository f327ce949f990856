/** `npm run bench:round-trips`: only the round-trip table of `npm run bench`, printed (nothing written). */
import { measureRoundTrips, roundTripMarkdown } from './bench/round-trips.ts';
import { handleArgs } from './usage.ts';

handleArgs('usage: npm run bench:round-trips\n  Prints the upstream round trips of each legacy operation, per upstream personality (nothing written).');
console.log(roundTripMarkdown(await measureRoundTrips()).join('\n'));
process.exit(0);
