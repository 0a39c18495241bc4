/**
 * The thread that reads and checks a large feed file (`FeedFiles`' `checkedRows`): the rows
 * of `csvRows.grouped` (the reader of the caller's thread, too) checked by the domain's
 * `FeedRows.checker`, posted a group at a time, so the caller's thread only stages them
 * (parse and write on two cores). At most `WINDOW` groups wait unread: the caller posts
 * `"more"` for each group it takes, and this thread reads on only then (memory stays flat
 * whatever the file's size).
 *
 * Messages: `{ rows }` (a group of `FeedRows.Outcome`s), then `{ done: true }`, or
 * `{ failure }` (the file is malformed: `csvRows.describe`), or `{ defect }` (a bug).
 */
import { FeedRows } from "@switchboard/domain"
import { parentPort, workerData } from "node:worker_threads"
import * as CsvRows from "./internal/csvRows.js"

/** The task a checking thread is started with. */
export interface Task {
  readonly path: string
  readonly delimiter: string
  readonly defaultCurrency: string | null
}

export type Message =
  | { readonly rows: ReadonlyArray<FeedRows.Outcome> }
  | { readonly done: true }
  | { readonly failure: CsvRows.Failure }
  | { readonly defect: string }

/** Groups posted and not yet taken, at most. */
export const WINDOW = 4

const run = async (task: Task) => {
  const port = parentPort!
  const post = (message: Message) => port.postMessage(message)
  let credits = WINDOW
  let wake: (() => void) | undefined
  port.on("message", (message) => {
    if (message !== "more") return
    credits++
    wake?.()
  })
  const check = FeedRows.checker(task.defaultCurrency)
  const rows = CsvRows.grouped(task.path, task.delimiter)
  while (true) {
    let next: IteratorResult<ReadonlyArray<{ readonly line: number; readonly cells: ReadonlyArray<string> }>>
    try {
      next = await rows.next()
    } catch (error) {
      return post({ failure: CsvRows.describe(error) })
    }
    if (next.done) return post({ done: true })
    let outcomes: ReadonlyArray<FeedRows.Outcome>
    try {
      outcomes = check(next.value)
    } catch (error) {
      return post({ defect: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
    while (credits === 0) await new Promise<void>((resume) => (wake = resume))
    wake = undefined
    credits--
    post({ rows: outcomes })
  }
}

if (parentPort !== null && workerData !== null && typeof workerData === "object" && "path" in workerData) {
  // the caller ends this thread once it has the last message
  run(workerData as Task).catch((error) => parentPort!.postMessage({ defect: String(error) } satisfies Message))
}
