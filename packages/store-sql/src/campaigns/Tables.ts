/**
 * The campaign tables (migration 0003) as Kysely sees them; same conventions as the
 * foundation's `Tables.ts` (epoch-millisecond integers, JSON as text, booleans 0/1).
 */
import type * as Columns from "../internal/Columns.js"
import type { Generated } from "kysely"
import type { Tables } from "../Tables.js"

export interface CampaignsTable extends Columns.OwnedRow {
  readonly name: string
  readonly template_name: string
  readonly template_language: string
  readonly template_category: string | null
  /** JSON array of components, frozen at launch. */
  readonly template_components: string | null
  /** JSON array of strings, or an object by name (NAMED templates). */
  readonly parameters: string
  /** JSON: a media or location header (migration 0020), with the operator's media id once launched. */
  readonly template_header: string | null
  /** JSON array of strings: the TEXT header's parameter (migration 0007). */
  readonly header_parameters: string
  /** JSON array of `{ index, sub_type, parameter }` (migration 0007). */
  readonly button_parameters: string
  readonly messages_per_second: number | null
  readonly status: string
  readonly scheduled_at: number | null
  readonly phone_number_id: string | null
  readonly paused_reason: string | null
  /** When recipients waiting for the messaging limit or their send window may go (migration 0020). */
  readonly limited_until: number | null
  /** JSON `{"from","to"}` (HH:MM, recipients' local time), or null (migration 0020). */
  readonly send_window: string | null
  readonly total: number
  readonly pending: number
  readonly skipped: number
  readonly cancelled: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly failed: number
  /** The seq the next added recipient gets. */
  readonly next_seq: number
  /** No pending recipient has a seq below it (claims start here). */
  readonly cursor_seq: number
  readonly launched_at: number | null
  readonly completed_at: number | null
  readonly cancelled_at: number | null
  readonly created_at: number
  readonly updated_at: number
}

export interface CampaignRecipientsTable {
  readonly id: string
  readonly campaign_id: string
  readonly seq: number
  readonly phone: string | null
  /** What the caller sent for the entry, or null when it is the phone itself. */
  readonly input: string | null
  readonly customer_id: string | null
  /** JSON array of strings, or null for the campaign's parameters. */
  readonly parameters: string | null
  readonly status: string
  readonly skip_reason: string | null
  readonly failure_code: number | null
  readonly failure_reason: string | null
  readonly retryable: number
  readonly operator_message_id: string | null
  /** `<lane job id>:<attempt>` of the lane that marked the row `sending`. */
  readonly lane_attempt: string | null
  readonly sending_at: number | null
  readonly sent_at: number | null
  readonly delivered_at: number | null
  readonly read_at: number | null
  readonly updated_at: number
  /** While `waiting_for_limit` or `waiting_for_window`: when it may go (migration 0020). */
  readonly next_attempt_at: number | null
  /** The `pricing.category` its status webhooks reported, and whether billable (1/0) (migration 0020). */
  readonly pricing_category: string | null
  readonly billable: number | null
  /**
   * Its time zones, from the phone number: the id of their list in `campaign_zone_lists`
   * (migration 0029; 0025 stored the names on each row); null: unknown.
   */
  readonly zone_id: number | null
}

/** The distinct time zone lists of recipients (`ZoneLists.ts`, migration 0029): IANA names joined by `&`. */
export interface CampaignZoneListsTable {
  readonly id: Generated<number>
  readonly zones: string
}

export interface MessagingLimitsTable {
  readonly store_id: string
  readonly mode: string
  readonly tier: string
  readonly updated_at: number
}

export interface MessagingReachTable {
  readonly store_id: string
  readonly mode: string
  readonly phone: string
  readonly reached_at: number
}

export interface RateCardsTable {
  readonly category: string
  readonly country: string
  readonly calling_code: string
  readonly price_micros: number
  readonly currency: string
  readonly effective_date: string
  readonly source: string
}

/** Counter changes recorded by status reports, folded into `campaigns` from time to time. */
export interface CampaignCounterDeltasTable {
  readonly campaign_id: string
  readonly pending: number
  readonly cancelled: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly failed: number
}

export interface CampaignLanesTable {
  readonly phone_number_id: string
  readonly generation: number
  readonly job_id: string | null
  readonly updated_at: number
}

export interface CampaignTables {
  readonly campaigns: CampaignsTable
  readonly campaign_recipients: CampaignRecipientsTable
  readonly campaign_counter_deltas: CampaignCounterDeltasTable
  readonly campaign_lanes: CampaignLanesTable
  readonly messaging_limits: MessagingLimitsTable
  readonly messaging_reach: MessagingReachTable
  readonly rate_cards: RateCardsTable
  readonly campaign_zone_lists: CampaignZoneListsTable
}

/** The foundation's tables plus the campaign tables. */
export type CampaignDatabase = Tables & CampaignTables
