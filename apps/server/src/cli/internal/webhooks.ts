/**
 * What `webhooks listen` does, loaded only when it runs: a node:http receiver on loopback,
 * registered for the key's store with `POST /chat/webhooks` (through the typed client of
 * `@switchboard/http`), whose every delivery is checked with the endpoint's secret (Standard
 * Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`) and printed as one JSON
 * line. Closing the scope (Ctrl-C, SIGTERM) deletes the registration, then the receiver.
 */
import { FetchHttpClient } from "@effect/platform"
import { Modules } from "@switchboard/domain"
import { Client } from "@switchboard/http"
import { Effect, Option, Redacted } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { Webhook } from "standardwebhooks"
import * as AppConfig from "../../Config.js"
import { CliError } from "../../Startup.js"

/** Larger bodies are refused (413): caller events are a few kilobytes. */
const MAX_BODY_BYTES = 1024 * 1024

const say = (line: string) => Effect.sync(() => process.stderr.write(`${line}\n`))

const reason = (e: { readonly cause?: unknown; readonly reason?: string }): string => {
  const cause = e.cause as { readonly code?: string; readonly message?: string; readonly cause?: { readonly code?: string } } | undefined
  return cause?.cause?.code ?? cause?.code ?? cause?.message ?? e.reason ?? "no answer"
}

const header = (req: IncomingMessage, name: string): string => {
  const value = req.headers[name]
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "")
}

/**
 * The receiver: checks each POST with `verifier()` (undefined until the registration has
 * answered: 503, and the server retries), prints the event, answers 204; a bad signature is
 * 400 and a line on stderr, never printed as an event.
 */
const startReceiver = (host: string, port: number, verifier: () => Webhook | undefined) =>
  Effect.acquireRelease(
    Effect.async<Server, CliError>((resume) => {
      const server = createServer((req, res) => {
        if (req.method !== "POST") {
          res.writeHead(405, { allow: "POST" }).end()
          return
        }
        const chunks: Array<Buffer> = []
        let size = 0
        req.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size <= MAX_BODY_BYTES) chunks.push(chunk)
        })
        req.on("end", () => {
          if (size > MAX_BODY_BYTES) return void res.writeHead(413).end()
          const webhook = verifier()
          if (webhook === undefined) return void res.writeHead(503).end()
          const body = Buffer.concat(chunks).toString("utf8")
          const headers = {
            "webhook-id": header(req, "webhook-id"),
            "webhook-timestamp": header(req, "webhook-timestamp"),
            "webhook-signature": header(req, "webhook-signature")
          }
          let event: unknown
          try {
            event = webhook.verify(body, headers)
          } catch (error) {
            process.stderr.write(
              `Refused a delivery (webhook-id ${JSON.stringify(headers["webhook-id"])}): ${error instanceof Error ? error.message : String(error)}\n`
            )
            return void res.writeHead(400, { "content-type": "text/plain" }).end("invalid signature\n")
          }
          process.stdout.write(`${JSON.stringify(event)}\n`)
          res.writeHead(204).end()
        })
      })
      server.once("error", (error: NodeJS.ErrnoException) =>
        resume(
          Effect.fail(
            new CliError({ message: `The receiver cannot listen on ${host}:${port} (${error.code ?? error.message}): pass another --port or --host` })
          )
        )
      )
      server.listen(port, host, () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )

/**
 * One Ctrl-C may arrive two or three times (the terminal signals the whole process group, and
 * pnpm or the launcher pass it on): the runtime takes the first and closes the scope; the
 * repeats of the next 2 s are absorbed so that the registration is removed, and a later one
 * quits at once. The handler stays for the rest of the process: removed with the scope, a
 * repeat arriving between the scope's end and the exit would kill the process by signal.
 */
const absorbRepeatedSignals = Effect.sync(() => {
  let first: number | undefined
  const handler = () => {
    first ??= Date.now()
    if (Date.now() - first > 2000) process.exit(130)
  }
  process.on("SIGINT", handler)
  process.on("SIGTERM", handler)
})

export const listen = (input: {
  readonly key: Option.Option<Redacted.Redacted<string>>
  readonly url: Option.Option<string>
  readonly events: Option.Option<string>
  readonly host: string
  readonly port: number
  readonly publicUrl: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const config = yield* AppConfig.client
    const serverPort = yield* AppConfig.port
    const baseUrl = Option.getOrElse(
      Option.orElse(input.url, () => config.url),
      () => `http://127.0.0.1:${serverPort}`
    ).replace(/\/$/, "")
    const apiKey = Option.orElse(input.key, () => config.apiKey).pipe(Option.filter((k) => Redacted.value(k).trim() !== ""))
    if (Option.isNone(apiKey)) {
      return yield* new CliError({ message: "webhooks listen needs the store's API key: pass --key sk_… or set SWITCHBOARD_API_KEY" })
    }
    const known: ReadonlyArray<string> = Modules.callerEventTypes
    const events = Option.match(input.events, {
      onNone: () => [...known],
      onSome: (list) =>
        list
          .split(",")
          .map((e) => e.trim())
          .filter((e) => e !== "")
    })
    const unknown = events.filter((e) => !known.includes(e))
    if (events.length === 0 || unknown.length > 0) {
      return yield* new CliError({
        message: `--events ${unknown.length > 0 ? `names unknown event types (${unknown.join(", ")})` : "is empty"}: use some of ${known.join(", ")}`
      })
    }

    yield* absorbRepeatedSignals
    let webhook: Webhook | undefined
    const server = yield* startReceiver(input.host, input.port, () => webhook)
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : input.port
    const hostInUrl = input.host === "0.0.0.0" || input.host === "::" ? "127.0.0.1" : input.host.includes(":") ? `[${input.host}]` : input.host
    const url = Option.getOrElse(input.publicUrl, () => `http://${hostInUrl}:${port}/`)

    const client = yield* Client.make({ baseUrl, apiKey: apiKey.value })
    const unreachable = (e: { readonly cause?: unknown; readonly reason?: string }) =>
      new CliError({ message: `Cannot reach Switchboard at ${baseUrl} (${reason(e)}): is it running? Set --url or SWITCHBOARD_URL.` })
    const endpoint = yield* Effect.acquireRelease(
      client.webhooks.create({ payload: { url, events: events as Array<(typeof Modules.callerEventTypes)[number]> } }).pipe(
        Effect.catchTags({
          ValidationFailed: (e) =>
            e.details.some((d) => d.path === "url")
              ? new CliError({
                  message: `Switchboard at ${baseUrl} refused the receiver's URL ${url} (${e.message}): start the server with SWITCHBOARD_ALLOW_PRIVATE_URLS=true to deliver to this machine (local development only), or pass --public-url`
                })
              : new CliError({ message: `Switchboard at ${baseUrl} refused the registration: ${e.message}` }),
          Unauthorized: () => new CliError({ message: "The API key was refused (401): check --key or SWITCHBOARD_API_KEY" }),
          RequestError: unreachable,
          ResponseError: (e) => new CliError({ message: `Switchboard at ${baseUrl} answered ${e.response.status}: ${e.message}` }),
          ParseError: () =>
            new CliError({ message: `Switchboard at ${baseUrl} answered something that is not a webhook endpoint: is that the right URL?` })
        })
      ),
      (created) =>
        client.webhooks.remove({ path: { id: created.id } }).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "no answer" }),
          Effect.zipRight(say(`Removed webhook ${created.id}.`)),
          Effect.catchAll(() => say(`Could not remove webhook ${created.id}: delete it with DELETE /chat/webhooks/${created.id}`))
        )
    )
    webhook = new Webhook(endpoint.secret)
    yield* say(
      `Ready: webhook ${endpoint.id} sends ${events.length === known.length ? "every event" : events.join(", ")} of this key's store to ${url}; each delivery's signature is checked and its event printed as one JSON line. Ctrl-C removes the registration.`
    )
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
