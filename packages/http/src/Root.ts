/**
 * `GET /`: where a person (or a script) who opens the server's address finds the docs. A
 * browser (`Accept: text/html`) gets a small page linking to them; anyone else gets JSON.
 * It is not part of the API definition (no OpenAPI operation, no client method).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** What `GET /` answers as JSON. */
export const links = {
  name: "Switchboard",
  docs: "/docs",
  openapi: "/chat/openapi.json",
  api: "/chat",
  health: "/healthz",
  ready: "/readyz"
} as const

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Switchboard</h1>
<p>This server answers the Switchboard HTTP API under <code>/chat</code>.</p>
<ul>
<li><a href="/docs">API documentation</a></li>
<li><a href="/chat/openapi.json">OpenAPI document</a></li>
<li><a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a></li>
</ul>
</body></html>
`

/** Registers `GET /` on the API's router (merged with the docs in `HttpServer`). */
export const layer = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/",
    Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      (request.headers.accept ?? "").includes("text/html") ? HttpServerResponse.html(page) : HttpServerResponse.unsafeJson(links)
    )
  )
)
