/** The `templates` table (migration 0001, `quality_score` from 0005) and its column map. */
import type { Template } from "@switchboard/domain"
import { Schema } from "effect"
import * as Columns from "../internal/Columns.js"

export interface TemplatesTable {
  readonly id: string
  readonly store_id: string
  readonly name: string
  readonly language: string
  readonly category: string
  readonly status: string
  /** JSON array of components. */
  readonly components: string
  readonly rejected_reason: string | null
  readonly quality_score: string | null
  readonly operator_id: string | null
  readonly created_at: number
  readonly updated_at: number
}

export interface TemplateTables {
  readonly templates: TemplatesTable
}

/**
 * Components as stored: the operator's, kept as it reports them by the sync (a header format
 * we do not model included), so a read checks only that they are a list, as the API does
 * when it shows them (`Template.TemplateResource`). A campaign keeps its template's copy.
 */
export const StoredComponents = Schema.declare((u: unknown): u is ReadonlyArray<Template.Component> => Array.isArray(u), {
  identifier: "StoredComponents"
})

const storedComponents = Columns.json(StoredComponents)

/**
 * `Columns.json(StoredComponents)`, read by `JSON.parse` and the schema's one check (a list)
 * directly: components are read for every template of every page. Text that fails either is
 * decoded by the schema itself, which throws its own error, so a bad row reads as before.
 */
export const componentsColumn: Columns.Codec<ReadonlyArray<Template.Component>, string> = {
  toRow: storedComponents.toRow,
  fromRow: (c) => {
    if (typeof c !== "string") return storedComponents.fromRow(c)
    let parsed: unknown
    try {
      parsed = JSON.parse(c)
    } catch {
      return storedComponents.fromRow(c)
    }
    return Array.isArray(parsed) ? parsed : storedComponents.fromRow(c)
  }
}

/** A template row, both ways. */
export const templateColumns = Columns.map<Template.Template, TemplatesTable>("templates", {
  id: ["id", Columns.text],
  storeId: ["store_id", Columns.text],
  name: ["name", Columns.text],
  language: ["language", Columns.text],
  category: ["category", Columns.text],
  status: ["status", Columns.text],
  components: ["components", componentsColumn],
  rejectedReason: ["rejected_reason", Columns.text],
  qualityScore: ["quality_score", Columns.text],
  operatorId: ["operator_id", Columns.text],
  ...Columns.stamps
})

/** Every column, in the table's order, for selects. */
export const templateSelect = [
  "id",
  "store_id",
  "name",
  "language",
  "category",
  "status",
  "components",
  "rejected_reason",
  "quality_score",
  "operator_id",
  "created_at",
  "updated_at"
] as const
