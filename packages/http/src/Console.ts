/**
 * The console's static files at `/console` (the page) and `/console/<file>` (its bundle),
 * served from memory: the application reads them once at start (`apps/console`'s build
 * output) and hands them here. No key is needed for the files: the console signs in against
 * the API itself. Without files (the console not built), `/console` says how to build it.
 * Not part of the API definition (no OpenAPI operation).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

export interface ConsoleFile {
  readonly contentType: string
  readonly body: Uint8Array
}

/** The console's files by name (`index.html`, `app.js`, ...). */
export type ConsoleFiles = ReadonlyMap<string, ConsoleFile>

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard console</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>Switchboard console</h1><p>The console is not built: run <code>pnpm build</code> and restart the server.</p>
</body></html>
`

const serve = (file: ConsoleFile | undefined) =>
  file === undefined
    ? HttpServerResponse.text("Not found", { status: 404 })
    : HttpServerResponse.uint8Array(file.body, {
        contentType: file.contentType,
        headers: { "cache-control": "no-cache", "x-content-type-options": "nosniff" }
      })

/** Registers `GET /console` and `GET /console/*` on the API's router. */
export const layer = (files: ConsoleFiles | undefined) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.zipRight(
      router.get("/console", Effect.succeed(files === undefined ? HttpServerResponse.html(notBuilt) : serve(files.get("index.html")))),
      router.get(
        "/console/*",
        Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
          const name = new URL(request.url, "http://x").pathname.slice("/console/".length)
          return serve(files?.get(name === "" ? "index.html" : name))
        })
      )
    )
  )
