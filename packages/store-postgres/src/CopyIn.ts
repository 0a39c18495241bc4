/**
 * `COPY … FROM STDIN` with the `pg` client alone (no stream library): a query object the
 * client runs as any other (its `submit` protocol), which answers the server's CopyInResponse
 * with the rows as text-format CopyData messages, then CopyDone. PostgreSQL parses and
 * stores a COPY's rows several times faster than a multi-row INSERT of the same rows (no
 * parameters to bind, no statement to plan), and the client serializes no parameter.
 *
 * The text format: columns split by a tab, rows ended by a newline, NULL written `\N`, and
 * a backslash, tab, newline or carriage return inside a value escaped with a backslash.
 */
import type { Database } from "@switchboard/store-sql"
import { Effect } from "effect"
import type pg from "pg"

/** Characters a text-format value escapes. */
const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
const escapeOf = (c: string) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r")

/** One value as COPY's text format writes it. */
export const encodeValue = (value: unknown): string => {
  if (value === null || value === undefined) return "\\N"
  if (typeof value === "string") return SPECIAL.test(value) ? value.replace(SPECIALS, escapeOf) : value
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  if (typeof value === "boolean") return value ? "t" : "f"
  const text = JSON.stringify(value)
  return SPECIAL.test(text) ? text.replace(SPECIALS, escapeOf) : text
}

/** Characters of text gathered before a CopyData message is sent: no string reaches V8's large-object space. */
const CHUNK = 32 * 1024

/** The protocol messages a COPY sends, as the `pg` connection writes them. */
interface Connection {
  query(text: string): void
  sendCopyFromChunk(chunk: Buffer): void
  endCopyFrom(): void
  sendCopyFail(message: string): void
}

/** The query object: `pg` calls `submit`, then one handler per message the server answers. */
class CopyFromStdin {
  private done = false
  private error: unknown = undefined
  constructor(
    private readonly text: string,
    private readonly columns: number,
    private readonly pieces: ReadonlyArray<ReadonlyArray<unknown>>,
    private readonly callback: (error: unknown) => void
  ) {}
  submit(connection: Connection): void {
    connection.query(this.text)
  }
  handleCopyInResponse(connection: Connection): void {
    let text = ""
    for (const values of this.pieces) {
      let i = 0
      const rows = values.length / this.columns
      for (let row = 0; row < rows; row++) {
        for (let column = 0; column < this.columns; column++) {
          text += encodeValue(values[i++])
          text += column === this.columns - 1 ? "\n" : "\t"
        }
        if (text.length >= CHUNK) {
          connection.sendCopyFromChunk(Buffer.from(text, "utf8"))
          text = ""
        }
      }
    }
    if (text.length > 0) connection.sendCopyFromChunk(Buffer.from(text, "utf8"))
    connection.endCopyFrom()
  }
  handleError(error: unknown): void {
    this.error ??= error
    this.finish()
  }
  handleReadyForQuery(): void {
    this.finish()
  }
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  private finish(): void {
    if (this.done) return
    this.done = true
    this.callback(this.error)
  }
}

/** Quotes an identifier (the table and column names are ours, never a caller's). */
const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`

/** `Database.copyIn` over the pool: a connection taken for the one statement, released after it (discarded after an error). */
export const copyIn =
  (pool: pg.Pool): Database.CopyIn =>
  (table, columns, pieces) =>
    pieces.every((values) => values.length === 0)
      ? Effect.void
      : Effect.promise(async () => {
          const client = await pool.connect()
          const text = `COPY ${identifier(table)} (${columns.map(identifier).join(", ")}) FROM STDIN`
          try {
            await new Promise<void>((resolve, reject) => {
              client.query(
                new CopyFromStdin(text, columns.length, pieces, (error) =>
                  error === undefined ? resolve() : reject(error)
                ) as unknown as pg.QueryConfig
              )
            })
            client.release()
          } catch (error) {
            client.release(error instanceof Error ? error : true)
            throw error
          }
        })
