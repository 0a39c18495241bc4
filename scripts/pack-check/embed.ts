/**
 * What a team that embeds Switchboard writes, run by `scripts/pack-check.mjs` in a scratch
 * project outside the workspace, against the packed tarballs (built JavaScript and
 * declarations, no `@switchboard/source` condition). It is type-checked there with `tsc`,
 * compiled, and run with node; any failed expectation exits non-zero.
 *
 * 1. `@switchboard/domain` validates a template: a good one passes, a bad one answers the
 *    failing fields.
 * 2. `@switchboard/http`'s web-standard handler serves requests (Request in, Response out)
 *    over the published adapters: SQLite in a temporary file, the operator client aimed at
 *    an unused loopback port (no request reaches it), the calls to callers' URLs.
 */
import { Store, StoreRepo, Template } from "@switchboard/domain"
import { HttpServer, Readiness } from "@switchboard/http"
import { GraphTransport, OperatorClient } from "@switchboard/operator-client"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Outbound } from "@switchboard/outbound"
import { Effect, Either, Layer, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

let failures = 0
const expect = (label: string, ok: boolean, detail?: unknown): void => {
  if (ok) console.log(`ok   ${label}`)
  else {
    failures++
    console.error(`FAIL ${label}${detail === undefined ? "" : `: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`)
  }
}

// 1. Template validation from the domain package.
const good: Template.TemplateData = {
  name: "order_update",
  category: "UTILITY",
  language: "en_US",
  components: [{ type: "BODY", text: "Hello {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ada", "A-17"]] } }]
}
expect("domain validates a good template", Either.isRight(Template.validate(good)))

const bad: Template.TemplateData = {
  name: "Order Update",
  category: "UTILITY",
  language: "english",
  components: [{ type: "BODY", text: "Hello {{1}}, see {{3}} today." }]
}
const refused = Template.validate(bad)
const paths = Either.isLeft(refused) ? refused.left.details.map((d) => d.path) : []
expect("domain refuses a bad template", Either.isLeft(refused), refused)
for (const path of ["templateData.name", "templateData.language", "templateData.components[0].text"]) {
  expect(`the refusal names ${path}`, paths.includes(path), paths)
}

// 2. One web-standard handler over the published adapters.
const dir = mkdtempSync(join(tmpdir(), "switchboard-embed-"))
const store = StoreSqlite.layer({ filename: join(dir, "switchboard.sqlite") })
const operator = OperatorClient.layer({
  // port 9 (discard) on loopback: nothing listens, and these requests never call the operator
  sandbox: { baseUrl: "http://127.0.0.1:9", accessToken: Redacted.make("sandbox"), appSecret: Redacted.make("sandbox-secret") },
  verifyToken: Redacted.make("verify-token")
}).pipe(Layer.provide(GraphTransport.layer()))
const readiness = Layer.succeed(Readiness, { check: Effect.void })
const dependencies = Layer.mergeAll(store, operator, readiness, Outbound.layer({ allowPrivateUrls: false })).pipe(Layer.orDie)

const created = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const made = yield* Store.make({ name: "Embedded shop" })
      yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
      return made
    }).pipe(Effect.provide(Layer.orDie(store)))
  )
)

const { handler, dispose } = HttpServer.toWebHandler(dependencies)
const call = async (path: string, headers: Record<string, string> = {}) => {
  const response: Response = await handler(new Request(`http://switchboard.test${path}`, { headers }))
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: response.status, body }
}

try {
  const health = await call("/healthz")
  expect("GET /healthz answers 200 ok", health.status === 200 && health.body?.status === "ok", health)

  const anonymous = await call("/chat/templates")
  expect(
    "GET /chat/templates without a key answers 401 unauthorized in the error envelope",
    anonymous.status === 401 && anonymous.body?.error?.code === "unauthorized" && typeof anonymous.body?.error?.message === "string",
    anonymous
  )

  const listed = await call("/chat/templates", { authorization: `Bearer ${created.testKey}` })
  expect(
    "GET /chat/templates with the store's test key answers 200 and an empty page",
    listed.status === 200 && Array.isArray(listed.body?.data) && listed.body.data.length === 0 && listed.body.next_cursor === null,
    listed
  )
} finally {
  await dispose()
  rmSync(dir, { recursive: true, force: true })
}

if (failures > 0) {
  console.error(`${failures} embedding check(s) failed`)
  process.exit(1)
}
console.log("embedding checks passed")
