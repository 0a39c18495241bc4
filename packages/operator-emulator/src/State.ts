/**
 * The state file: accounts, phone numbers, templates, flows and customer windows as one JSON document,
 * loaded at start and rewritten atomically (temporary file, then rename) at most every ~100 ms.
 * Sends, statistics and configuration are not persisted.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import type { AccountsSnapshot } from "./Accounts.js"
import type { CatalogsSnapshot } from "./Catalogs.js"
import type { FlowsSnapshot } from "./Flows.js"
import type { TemplatesSnapshot } from "./Templates.js"

/** Debounce of writes. */
export const SAVE_DEBOUNCE_MS = 100

/** The document in the state file. */
export interface PersistedState {
  readonly version: 1
  readonly accounts: AccountsSnapshot
  readonly templates: TemplatesSnapshot
  /** Absent in files written before the emulator knew flows. */
  readonly flows?: FlowsSnapshot
  /** Absent in files written before the emulator knew catalogs. */
  readonly catalogs?: CatalogsSnapshot
  /** `"<phone_number_id>|<wa_id>"` to the epoch ms of the user's last inbound message. */
  readonly customerWindows: Record<string, number>
}

/** Reads the state file; undefined when it does not exist. Throws on a corrupt file rather than overwrite it. */
export const loadState = (path: string): PersistedState | undefined => {
  if (!existsSync(path)) return undefined
  const text = readFileSync(path, "utf8")
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new Error(`operator emulator state file ${path} is not valid JSON: ${String(error)}`)
  }
  const state = parsed as Partial<PersistedState>
  if (state?.version !== 1 || typeof state.accounts !== "object" || typeof state.templates !== "object") {
    throw new Error(`operator emulator state file ${path} has an unknown format`)
  }
  return {
    version: 1,
    accounts: state.accounts,
    templates: state.templates,
    ...(state.flows === undefined ? {} : { flows: state.flows }),
    ...(state.catalogs === undefined ? {} : { catalogs: state.catalogs }),
    customerWindows: state.customerWindows ?? {}
  }
}

/** Writes the snapshot atomically. */
export const writeState = (path: string, state: PersistedState): void => {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify(state))
  renameSync(temporary, path)
}

/** Debounced writer of the state file. */
export class StateFile {
  private timer: NodeJS.Timeout | undefined

  constructor(
    readonly path: string,
    private readonly snapshot: () => PersistedState,
    private readonly log: (line: string) => void
  ) {}

  /** Schedules a write within ~100 ms (several changes make one write). */
  schedule(): void {
    if (this.timer !== undefined) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.write()
    }, SAVE_DEBOUNCE_MS)
  }

  private write(): void {
    try {
      writeState(this.path, this.snapshot())
    } catch (error) {
      this.log(`could not write state file ${this.path}: ${String(error)}`)
    }
  }

  /** Writes now if a write is pending. */
  flush(): void {
    if (this.timer === undefined) return
    clearTimeout(this.timer)
    this.timer = undefined
    this.write()
  }
}
