/** Small shared pieces: a loader hook, a table, badges, an error line, a time format. */
import type { ComponentChildren } from "preact"
import { useCallback, useEffect, useState } from "preact/hooks"
import { ApiError } from "./api.js"

/** Loads `load()` now and whenever `deps` change (and every `everyMs` when given); `reload` runs it again. */
export const useLoad = <T,>(load: () => Promise<T>, deps: ReadonlyArray<unknown>, everyMs?: number) => {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const reload = useCallback(() => {
    load().then(
      (d) => {
        setData(d)
        setError(undefined)
      },
      (e: unknown) => setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e))
    )
  }, deps)
  useEffect(() => {
    reload()
    if (everyMs === undefined) return
    const timer = setInterval(reload, everyMs)
    return () => clearInterval(timer)
  }, [reload, everyMs])
  return { data, error, reload }
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—")

export const ErrorLine = ({ error }: { error: string | undefined }) => (error ? <div class="error">{error}</div> : null)

const tone = (status: string) =>
  /^(completed|approved|delivered|read|succeeded|enabled|published|processed|granted|ok|connected|2\d\d)$/i.test(status)
    ? "ok"
    : /(fail|rejected|dead|disabled|cancel|declined|error|expired|paused|5\d\d|4\d\d)/i.test(status)
      ? "bad"
      : "warn"

export const Badge = ({ value }: { value: unknown }) =>
  value === null || value === undefined ? <span class="muted">—</span> : <span class={`badge ${tone(String(value))}`}>{String(value)}</span>

/** A value in a cell: objects as compact JSON, nulls as a dash. */
export const show = (value: unknown): ComponentChildren =>
  value === null || value === undefined ? (
    <span class="muted">—</span>
  ) : typeof value === "object" ? (
    <code>{JSON.stringify(value)}</code>
  ) : (
    String(value)
  )

export interface Column<T> {
  readonly label: string
  readonly cell: (row: T) => ComponentChildren
}

/** A table of rows; clicking a row calls `onPick` when given. Every field of the rows when no columns are given. */
export const Table = <T extends Record<string, any>>(props: {
  rows: ReadonlyArray<T> | undefined
  columns?: ReadonlyArray<Column<T>>
  onPick?: (row: T) => void
  selected?: (row: T) => boolean
  empty?: string
}) => {
  const rows = props.rows ?? []
  const columns: ReadonlyArray<Column<T>> =
    props.columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))].map((k) => ({ label: k.replace(/_/g, " "), cell: (r: T) => show(r[k]) }))
  if (props.rows === undefined) return <p class="muted">Loading…</p>
  if (rows.length === 0) return <p class="muted">{props.empty ?? "Nothing yet."}</p>
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr
              key={row.id ?? i}
              class={`${props.onPick ? "clickable" : ""} ${props.selected?.(row) ? "selected" : ""}`}
              onClick={props.onPick ? () => props.onPick!(row) : undefined}
            >
              {columns.map((c) => (
                <td key={c.label}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** A button that runs an API action, shows its error, and calls `done` after. */
export const Action = (props: {
  label: string
  run: () => Promise<unknown>
  done?: (result: unknown) => void
  primary?: boolean
  onError?: (e: string) => void
}) => {
  const [busy, setBusy] = useState(false)
  return (
    <button
      type="button"
      class={props.primary ? "primary" : ""}
      disabled={busy}
      onClick={async (e) => {
        e.stopPropagation()
        setBusy(true)
        try {
          const result = await props.run()
          props.done?.(result)
        } catch (err) {
          props.onError?.(err instanceof ApiError ? `${err.code}: ${err.message}` : String(err))
        } finally {
          setBusy(false)
        }
      }}
    >
      {props.label}
    </button>
  )
}
