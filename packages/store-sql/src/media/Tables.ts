/** The `media` and `media_operator_copies` tables (migration 0020) and the media column map. */
import type { Media } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface MediaTable {
  readonly id: string
  readonly store_id: string
  readonly mime_type: string
  readonly size: number | string
  readonly sha256: string
  readonly filename: string | null
  readonly created_at: number
}

export interface MediaOperatorCopiesTable {
  readonly media_id: string
  readonly phone_number_id: string
  readonly operator_media_id: string
  readonly uploaded_at: number
}

export interface MediaTables {
  readonly media: MediaTable
  readonly media_operator_copies: MediaOperatorCopiesTable
}

/** A media row, both ways (its operator copies are rows of their own). */
export const mediaColumns = Columns.map<Omit<Media.Media, "operatorCopies">, MediaTable>("media", {
  id: ["id", Columns.text],
  storeId: ["store_id", Columns.text],
  mimeType: ["mime_type", Columns.text],
  size: ["size", Columns.integer],
  sha256: ["sha256", Columns.text],
  filename: ["filename", Columns.text],
  createdAt: ["created_at", Columns.epoch]
})
