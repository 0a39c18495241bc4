/**
 * Reading feed files: a delimited text file on local disk read as a stream of rows (a real
 * streaming CSV parser: quoted fields, embedded delimiters and line breaks; constant memory
 * whatever the file's size), and a caller's URL fetched to a local file through the SSRF
 * guard (public addresses only, no redirects, a size cap).
 *
 * Implemented by `@switchboard/outbound` (the package that calls callers' URLs).
 */
import { Context, Data, type Effect, type Stream } from "effect"
import type { Outcome } from "./FeedRows.js"

/** One row of a file: its 1-based line number (the header is line 1) and its cells. */
export interface Row {
  readonly line: number
  readonly cells: ReadonlyArray<string>
}

/** The file cannot be read as delimited text, or the URL could not be fetched. `line` names where. */
export class FeedFileError extends Data.TaggedError("FeedFileError")<{ readonly message: string; readonly line?: number | undefined }> {}

export class FeedReader extends Context.Tag("@switchboard/domain/FeedReader")<
  FeedReader,
  {
    /** The file's first line, as text (to detect its delimiter); empty for an empty file. */
    readonly firstLine: (path: string) => Effect.Effect<string, FeedFileError>
    /**
     * The file's rows, header first, in groups (for speed), with `delimiter` (one character).
     * A row whose number of cells differs from the header's, or an unclosed quote, fails
     * the stream with the line.
     */
    readonly rows: (path: string, delimiter: string) => Stream.Stream<ReadonlyArray<Row>, FeedFileError>
    /**
     * Optional, a faster way to the same result: the file's rows read and checked
     * (`FeedRows.checker(defaultCurrency)`) off the caller's thread (a reader may leave a
     * small file to `rows`: `undefined`). The same outcomes in the same order as `rows`
     * checked group after group, and the same failure, with its line, for a malformed file.
     */
    readonly checkedRows?:
      | ((path: string, delimiter: string, defaultCurrency: string | null) => Stream.Stream<ReadonlyArray<Outcome>, FeedFileError> | undefined)
      | undefined
    /** Fetches `url` (http or https, public addresses only, no redirects) to a new local file of at most `maxBytes`. */
    readonly download: (url: string, maxBytes: number) => Effect.Effect<{ readonly path: string }, FeedFileError>
    /** Removes a file this reader downloaded (or any temporary file); missing is not an error. */
    readonly discard: (path: string) => Effect.Effect<void>
  }
>() {}
