/**
 * V8 settings of the service's processes, applied before any other module is evaluated
 * (`main.ts` imports this first).
 *
 * `--no-allocation-site-pretenuring`: V8 may decide that every object allocated at one
 * place in the code should go straight to the old generation, when it once saw most of
 * them survive a young-generation collection. A campaign worker's sends are short-lived
 * (a few milliseconds), but a collection that lands while a batch is in flight makes V8
 * pretenure the request's objects; from then on every send leaves garbage in the old
 * generation, and full collections run every few seconds. Measured with `pnpm bench
 * campaign`: GC threads' CPU halved, worker CPU per message about 15% lower, peak memory
 * flat (328 instead of 454 MB).
 */
import { setFlagsFromString } from "node:v8"

setFlagsFromString("--no-allocation-site-pretenuring")

/**
 * `--heap-growing-percent=50`: after a full collection V8 lets the old generation grow to
 * 1.5 times what survived before the next one, instead of up to 4 times when collections
 * look cheap. A large feed upload makes garbage at a steady rate that partly leaves the young
 * generation; with the default the process grew by about 360 MB over idle for a
 * 500,000-row file (live memory stayed near 100 MB), with 1.5 by about 105 MB, at the same
 * speed relative to csv-parse alone (`pnpm bench commerce`); a service whose live heap is
 * tens of MB pays a few more short full collections for it.
 */
setFlagsFromString("--heap-growing-percent=50")
