/**
 * A feed file's rows through `csv-parse`, grouped, with their lines, and what a parser
 * error means to a caller: shared by `FeedFiles` (on the caller's thread) and its checking
 * thread (`FeedCheckWorker.ts`), so both read a file the same way.
 */
import type { FeedReader } from "@switchboard/domain"
import { parse } from "csv-parse"
import { createReadStream } from "node:fs"

/** Rows handed on at once (the parser's records, grouped). */
const GROUP = 1000

/** Why a file cannot be read, and where (plain data: it crosses threads). */
export interface Failure {
  readonly message: string
  readonly line?: number | undefined
}

const fileError = (message: string, line?: number): Failure => ({ message, line })

/** What the parser's error means to a caller, with the line where it stopped. */
export const describe = (error: unknown): Failure => {
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
export async function* grouped(path: string, delimiter: string): AsyncGenerator<ReadonlyArray<FeedReader.Row>> {
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
