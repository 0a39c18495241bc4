/**
 * The load client of the benchmarks, in its own plain `node` process so that it never
 * shares a core's event loop with the harness (which runs under tsx) or with a server:
 *   node bench/_load.mjs '<json options for autocannon>'
 * Prints one JSON line: requests/s (mean), latency p50/p99/max (ms), non-2xx, errors.
 */
import autocannon from "autocannon"

const options = JSON.parse(process.argv[2])
autocannon(options, (err, r) => {
  if (err) {
    console.error(err)
    process.exit(1)
  }
  console.log(
    JSON.stringify({
      rps: r.requests.average,
      total: r.requests.total,
      p50: r.latency.p50,
      p99: r.latency.p99,
      max: r.latency.max,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts
    })
  )
})
