/**
 * The domain's `FeedReader` port: feed files read with a streaming CSV parser
 * (`csv-parse`: quoted fields, embedded delimiters and line breaks, a byte-order mark;
 * memory stays flat whatever the file's size) and feed URLs fetched to a temporary file
 * through the guarded client of every call to a caller's URL (`internal/client.ts`: http(s)
 * only, no credentials, every resolved address public unless private URLs are allowed,
 * checked at connect time; no redirects; a size cap and a deadline).
 */
import { FeedReader } from "@switchboard/domain"
import { parse } from "csv-parse"
import { Effect, Either, Layer, Stream } from "effect"
import { createReadStream, createWriteStream } from "node:fs"
import { open, rm } from "node:fs/promises"
import type { IncomingMessage } from "node:http"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { call, type CallError } from "./internal/client.js"
import { errorMessage, systemResolver, type Resolver } from "./internal/resolve.js"
import { ADDRESS_NOT_ALLOWED, parseTarget } from "./internal/target.js"

export interface FeedFilesOptions {
  /** Lets feed URLs reach loopback and private addresses (local development, tests). */
  readonly allowPrivateUrls: boolean
  /** Deadline of a whole download (default 10 minutes). */
  readonly downloadTimeoutMs?: number | undefined
  /**
   * Longest silence of the URL (default 30 s): no answer this long after the request, or no
   * bytes this long during the download, ends it as failed (a server that accepts and never
   * answers must not keep an upload `processing` for the whole deadline).
   */
  readonly idleTimeoutMs?: number | undefined
  readonly resolver?: Resolver | undefined
}

/** Rows handed on at once (the parser's records, grouped). */
const GROUP = 1000

const fileError = (message: string, line?: number) => new FeedReader.FeedFileError({ message, line })

/** What the parser's error means to a caller, with the line where it stopped. */
const describe = (error: unknown): FeedReader.FeedFileError => {
  const e = error as { code?: string; lines?: number; message?: string }
  const line = typeof e.lines === "number" ? e.lines : undefined
  switch (e.code) {
    case "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH":
    case "CSV_RECORD_DONT_MATCH_COLUMNS_LENGTH":
      return fileError("this row has a different number of cells than the header (a wrong delimiter, or an unquoted delimiter in a cell?)", line)
    case "CSV_QUOTE_NOT_CLOSED":
      return fileError("a quoted cell is never closed", line)
    case "CSV_INVALID_CLOSING_QUOTE":
    case "INVALID_OPENING_QUOTE":
      return fileError("a quote appears inside an unquoted cell (quote the whole cell and double the quotes inside)", line)
    default:
      return fileError(`the file cannot be read as delimited text (${e.message ?? String(error)})`, line)
  }
}

/**
 * The file's rows, grouped. Lines are counted here (the parser's per-record `info` costs a
 * third of its speed): a row starts one line after the previous one ended, and a quoted
 * cell's line breaks move the count on. Blank lines are skipped; a row whose number of
 * cells differs from the header's fails with its line.
 */
async function* grouped(path: string, delimiter: string): AsyncGenerator<ReadonlyArray<FeedReader.Row>> {
  const parser = createReadStream(path).pipe(
    parse({ delimiter, bom: true, skip_empty_lines: false, relax_column_count: true, max_record_size: 1_000_000 })
  )
  let group: Array<FeedReader.Row> = []
  let line = 0
  let width = -1
  for await (const record of parser as AsyncIterable<Array<string>>) {
    line++
    const start = line
    for (const cell of record) if (cell.includes("\n")) line += cell.split("\n").length - 1
    if (record.length === 1 && record[0] === "") continue
    if (width === -1) width = record.length
    else if (record.length !== width) throw Object.assign(new Error("inconsistent"), { code: "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH", lines: start })
    group.push({ line: start, cells: record })
    if (group.length >= GROUP) {
      yield group
      group = []
    }
  }
  if (group.length > 0) yield group
}

const firstLine = (path: string): Effect.Effect<string, FeedReader.FeedFileError> =>
  Effect.tryPromise({
    try: async () => {
      const handle = await open(path, "r")
      try {
        const buffer = Buffer.alloc(64 * 1024)
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
        const text = buffer
          .subarray(0, bytesRead)
          .toString("utf8")
          .replace(/^\uFEFF/, "")
        const end = text.search(/\r?\n/)
        return end === -1 ? text : text.slice(0, end)
      } finally {
        await handle.close()
      }
    },
    catch: (error) => fileError(`the file cannot be read (${errorMessage(error)})`)
  })

/** What a caller is told when the URL gave no answer. */
const unanswered = (error: CallError, idleMs: number, timeoutMs: number): string => {
  switch (error._tag) {
    case "AddressRefused":
      return `the URL is refused: ${ADDRESS_NOT_ALLOWED}`
    case "Unresolved":
      return `the URL could not be fetched (${error.message})`
    case "TimedOut":
      return idleMs <= timeoutMs ? `the URL did not answer within ${idleMs} ms` : `the download did not finish within ${timeoutMs} ms`
    case "Failed":
      return `the URL could not be fetched (${errorMessage(error.error)})`
  }
}

/**
 * Writes a 2xx answer's body to `path`: at most `maxBytes`, no silence longer than `idleMs`,
 * done within `timeoutMs`. The file is removed when it fails or is interrupted.
 */
const save = (
  response: IncomingMessage,
  path: string,
  limits: { readonly maxBytes: number; readonly idleMs: number; readonly timeoutMs: number }
): Effect.Effect<{ readonly path: string }, FeedReader.FeedFileError> =>
  Effect.async((resume) => {
    let settled = false
    const out = createWriteStream(path)
    const fail = (message: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(idle)
      response.destroy()
      out.destroy()
      rm(path, { force: true }).finally(() => resume(Effect.fail(fileError(message))))
    }
    const timer = setTimeout(() => fail(`the download did not finish within ${limits.timeoutMs} ms`), Math.max(0, limits.timeoutMs))
    let idle: ReturnType<typeof setTimeout> | undefined
    /** (Re)starts the silence deadline: at the answer, at each chunk. */
    const awake = () => {
      clearTimeout(idle)
      idle = setTimeout(() => fail(`the download stalled: no data for ${limits.idleMs} ms`), limits.idleMs)
    }
    awake()
    const status = response.statusCode ?? 0
    if (status < 200 || status >= 300) {
      response.resume()
      fail(status >= 300 && status < 400 ? `the URL answered ${status}: redirects are not followed` : `the URL answered ${status}`)
      return
    }
    let bytes = 0
    response.on("data", (chunk: Buffer) => {
      awake()
      bytes += chunk.length
      if (bytes > limits.maxBytes) fail(`the file is larger than ${limits.maxBytes} bytes`)
    })
    response.on("error", (error) => fail(`the download failed (${errorMessage(error)})`))
    response.pipe(out)
    out.on("finish", () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(idle)
      resume(Effect.succeed({ path }))
    })
    out.on("error", (error) => fail(`the file could not be stored (${errorMessage(error)})`))
    return Effect.sync(() => fail("interrupted"))
  })

/** Fetches a feed URL through the guarded client to a temporary file. */
const download =
  (options: FeedFilesOptions) =>
  (url: string, maxBytes: number): Effect.Effect<{ readonly path: string }, FeedReader.FeedFileError> =>
    Effect.suspend(() => {
      const parsed = parseTarget(url, options.allowPrivateUrls)
      if (Either.isLeft(parsed)) return Effect.fail(fileError(`the URL is refused: ${parsed.left.reason}`))
      const timeoutMs = options.downloadTimeoutMs ?? 600_000
      const idleMs = options.idleTimeoutMs ?? 30_000
      const started = Date.now()
      return call({
        target: parsed.right,
        method: "GET",
        headers: { "user-agent": "Switchboard-Feeds/1.0", accept: "text/csv, text/tab-separated-values, text/plain, */*" },
        guard: { resolver: options.resolver ?? systemResolver, allowPrivateUrls: options.allowPrivateUrls },
        timeoutMs: Math.min(idleMs, timeoutMs)
      }).pipe(
        Effect.mapError((error) => fileError(unanswered(error, idleMs, timeoutMs))),
        Effect.flatMap((response) =>
          save(response, join(tmpdir(), `switchboard-feed-${randomUUID()}`), { maxBytes, idleMs, timeoutMs: timeoutMs - (Date.now() - started) })
        )
      )
    })

export const make = (options: FeedFilesOptions): FeedReader.FeedReader["Type"] => ({
  firstLine,
  rows: (path, delimiter) => Stream.fromAsyncIterable(grouped(path, delimiter), describe),
  download: download(options),
  discard: (path) => Effect.promise(() => rm(path, { force: true }))
})

export const layer = (options: FeedFilesOptions): Layer.Layer<FeedReader.FeedReader> => Layer.succeed(FeedReader.FeedReader, make(options))
