/**
 * The domain's `FeedReader` port: feed files read with a streaming CSV parser
 * (`csv-parse`: quoted fields, embedded delimiters and line breaks, a byte-order mark;
 * memory stays flat whatever the file's size) and feed URLs fetched to a temporary file
 * through the guarded client of every call to a caller's URL (`internal/client.ts`: http(s)
 * only, no credentials, every resolved address public unless private URLs are allowed,
 * checked at connect time; no redirects; a size cap and a deadline).
 *
 * A file of `threadFromBytes` or more is also read and checked on a thread of its own
 * (`checkedRows`, `FeedCheckWorker.ts`: the same reader and the domain's checker), so the
 * upload's thread only stages its rows: parse and write on two cores.
 */
import { FeedReader, type FeedRows } from "@switchboard/domain"
import { Effect, Either, Layer, Option, Queue, Stream } from "effect"
import { createWriteStream, existsSync, readFileSync, statSync } from "node:fs"
import { open, rm } from "node:fs/promises"
import type { IncomingMessage } from "node:http"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { dirname, extname, join } from "node:path"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { Message, Task } from "./FeedCheckWorker.js"
import { call, type CallError } from "./internal/client.js"
import * as CsvRows from "./internal/csvRows.js"
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
  /**
   * Files of at least this size are read and checked on a thread of their own (default
   * 1 MiB: below it, starting the thread costs more than it saves); `Infinity` never.
   */
  readonly threadFromBytes?: number | undefined
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

const fileError = (message: string, line?: number) => new FeedReader.FeedFileError({ message, line })
const describe = (error: unknown) => {
  const { message, line } = CsvRows.describe(error)
  return fileError(message, line)
}

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

/** The checking thread's young generation, in MB (V8's default is several times larger). */
const YOUNG_MB = 8

/** How to start the checking thread: its script (a file), or a bootstrap evaluated as a script that imports it. */
type Thread = { readonly script: URL | string; readonly eval: boolean }

/**
 * The checking thread's script: next to this module, as this module is (`.js` built, or the
 * server's bundle, which builds it as an entry of its own; `.ts` run from the sources, then
 * imported by a bootstrap that registers tsx in the thread first: a thread takes no
 * `--import`); none when it is not there (this module bundled elsewhere): no thread then.
 */
const checkingThread = (): Thread | undefined => {
  const here = import.meta.url
  if (!here.startsWith("file:")) return undefined
  const ext = extname(fileURLToPath(here))
  const url = new URL(`./FeedCheckWorker${ext}`, here)
  if (!existsSync(fileURLToPath(url))) return undefined
  if (ext !== ".ts") return { script: url, eval: false }
  let tsx: string
  try {
    // its ES module API (the CommonJS one cannot register the hooks)
    const manifest = createRequire(here).resolve("tsx/package.json")
    const api = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> }).exports["./esm/api"]
    tsx = pathToFileURL(join(dirname(manifest), api.import.default)).href
  } catch {
    return undefined
  }
  return { script: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`, eval: true }
}

/** The file's rows read and checked on a thread of its own, group after group (the thread reads ahead a few). */
const checkedOnThread =
  (thread: Thread) =>
  (path: string, delimiter: string, defaultCurrency: string | null): Stream.Stream<ReadonlyArray<FeedRows.Outcome>, FeedReader.FeedFileError> =>
    Stream.unwrapScoped(
      Effect.gen(function* () {
        const messages = yield* Queue.unbounded<Message>()
        const task: Task = { path, delimiter, defaultCurrency }
        const worker = yield* Effect.acquireRelease(
          Effect.sync(() => {
            // a small young generation: the thread's garbage is short-lived, and the upload's
            // memory (its peak above idle) is what the bench holds to 150 MB
            const started = new Worker(thread.script, { workerData: task, eval: thread.eval, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } })
            started.on("message", (message: Message) => Queue.unsafeOffer(messages, message))
            started.on("error", (error) => Queue.unsafeOffer(messages, { defect: error.stack ?? error.message }))
            started.on("exit", (code) => Queue.unsafeOffer(messages, { defect: `it ended (exit code ${code}) before the file's end` }))
            return started
          }),
          (started) => Effect.promise(() => started.terminate())
        )
        return Stream.repeatEffectOption(
          Effect.flatMap(Queue.take(messages), (message): Effect.Effect<ReadonlyArray<FeedRows.Outcome>, Option.Option<FeedReader.FeedFileError>> => {
            if ("rows" in message) {
              worker.postMessage("more")
              return Effect.succeed(message.rows)
            }
            if ("done" in message) return Effect.fail(Option.none())
            if ("failure" in message) return Effect.fail(Option.some(fileError(message.failure.message, message.failure.line)))
            return Effect.die(new Error(`the thread checking a feed file failed: ${message.defect}`))
          })
        )
      })
    )

export const make = (options: FeedFilesOptions): FeedReader.FeedReader["Type"] => {
  const threadFrom = options.threadFromBytes ?? 1024 * 1024
  const thread = threadFrom === Number.POSITIVE_INFINITY ? undefined : checkingThread()
  return {
    firstLine,
    rows: (path, delimiter) => Stream.fromAsyncIterable(CsvRows.grouped(path, delimiter), describe),
    checkedRows:
      thread === undefined
        ? undefined
        : (path, delimiter, defaultCurrency) => (sizeOf(path) >= threadFrom ? checkedOnThread(thread)(path, delimiter, defaultCurrency) : undefined),
    download: download(options),
    discard: (path) => Effect.promise(() => rm(path, { force: true }))
  }
}

/** The file's size; 0 when it cannot be read (the reader then fails as it would). */
const sizeOf = (path: string): number => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export const layer = (options: FeedFilesOptions): Layer.Layer<FeedReader.FeedReader> => Layer.succeed(FeedReader.FeedReader, make(options))
