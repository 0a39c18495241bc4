/**
 * The column maps of the campaign tables: how each field of `Campaign` and `Recipient` is
 * stored, in both directions, declared once (see `internal/Columns.ts`), and the SELECTs
 * that read whole entities through them.
 *
 * Two fields of a recipient span columns and are mapped here, beside the others: `failure`
 * (`failure_code`, `failure_reason`, `retryable`; shown only in status `failed`) and `input`
 * (stored null when it is the phone itself).
 */
import { Campaign, type CampaignRecipient, type CampaignRepo, RichSend, TemplateSend, type Tenant } from "@switchboard/domain"
import { type Kysely, sql } from "kysely"
import * as Columns from "../internal/Columns.js"
import { StoredComponents } from "../templates/Tables.js"
import type { CampaignDatabase, CampaignRecipientsTable, CampaignsTable } from "./Tables.js"

const { epoch, integer, json, nullable, text } = Columns

export const campaignColumns = Columns.map<Campaign.Campaign, CampaignsTable>("campaigns", {
  ...Columns.owned,
  name: ["name", text],
  templateName: ["template_name", text],
  templateLanguage: ["template_language", text],
  parameters: ["parameters", json(Campaign.Campaign.fields.parameters)],
  templateHeader: ["template_header", nullable(json(RichSend.StoredHeader))],
  headerParameters: ["header_parameters", json(Campaign.Campaign.fields.headerParameters)],
  buttonParameters: ["button_parameters", json(Campaign.Campaign.fields.buttonParameters)],
  templateCategory: ["template_category", text],
  templateComponents: ["template_components", nullable(json(StoredComponents))],
  messagesPerSecond: ["messages_per_second", nullable(integer)],
  status: ["status", text],
  scheduledAt: ["scheduled_at", nullable(epoch)],
  phoneNumberId: ["phone_number_id", text],
  pausedReason: ["paused_reason", text],
  limitedUntil: ["limited_until", nullable(epoch)],
  sendWindow: ["send_window", nullable(json(Campaign.SendWindow))],
  total: ["total", integer],
  pending: ["pending", integer],
  skipped: ["skipped", integer],
  cancelled: ["cancelled", integer],
  sent: ["sent", integer],
  delivered: ["delivered", integer],
  read: ["read", integer],
  failed: ["failed", integer],
  launchedAt: ["launched_at", nullable(epoch)],
  completedAt: ["completed_at", nullable(epoch)],
  cancelledAt: ["cancelled_at", nullable(epoch)],
  ...Columns.stamps
})

/** Counters that status reports change through `campaign_counter_deltas` rows (folded into the campaign row from time to time). */
export const DELTA_COLUMNS = ["pending", "cancelled", "sent", "delivered", "read", "failed"] as const

const deltaColumns: ReadonlySet<string> = new Set(DELTA_COLUMNS)

const storedColumns = Object.values(campaignColumns.column) as ReadonlyArray<string>

/**
 * Every campaign column, with the counters as they are now: the stored counter plus its
 * unfolded deltas, summed in the same statement (one snapshot), so a fold never makes a
 * counter jump.
 */
export const selectCampaigns = (k: Kysely<CampaignDatabase>) =>
  k
    .selectFrom("campaigns as c")
    .select(storedColumns.filter((column) => !deltaColumns.has(column)).map((column) => sql.ref(`c.${column}`).as(column)))
    .select(
      DELTA_COLUMNS.map((column) =>
        sql<number>`(c.${sql.ref(column)} + (select coalesce(sum(d.${sql.ref(column)}), 0) from campaign_counter_deltas d where d.campaign_id = c.id))`.as(
          column
        )
      )
    )

/** Every campaign column as stored, without the unfolded deltas (for readers that never look at counters). */
export const selectStoredCampaigns = (k: Kysely<CampaignDatabase>) =>
  k.selectFrom("campaigns as c").select(storedColumns.map((column) => sql.ref(`c.${column}`).as(column)))

/** A campaign read by `selectCampaigns` or `selectStoredCampaigns`. */
export const toCampaign = (row: unknown): Campaign.Campaign => campaignColumns.fromRow(row as CampaignsTable)

type Recipient = CampaignRecipient.Recipient

const recipientFields = Columns.map<Omit<Recipient, "failure" | "input">, CampaignRecipientsTable>("campaign_recipients", {
  id: ["id", text],
  campaignId: ["campaign_id", text],
  seq: ["seq", integer],
  phone: ["phone", text],
  customerId: ["customer_id", text],
  parameters: ["parameters", nullable(json(TemplateSend.FrozenParameters))],
  status: ["status", text],
  skipReason: ["skip_reason", text],
  operatorMessageId: ["operator_message_id", text],
  sentAt: ["sent_at", nullable(epoch)],
  deliveredAt: ["delivered_at", nullable(epoch)],
  readAt: ["read_at", nullable(epoch)],
  nextAttemptAt: ["next_attempt_at", nullable(epoch)],
  updatedAt: ["updated_at", epoch]
})

export const recipientColumns: Columns.ColumnMap<Recipient, CampaignRecipientsTable> = {
  toRow: (r) => ({
    ...recipientFields.toRow(r),
    input: r.input === r.phone ? null : r.input,
    failure_code: r.failure?.code ?? null,
    failure_reason: r.failure?.reason ?? null,
    retryable: r.failure?.retryable === true ? 1 : 0
  }),
  fromRow: (row) => ({
    ...recipientFields.fromRow(row),
    input: row.input ?? row.phone ?? "",
    failure:
      row.status === "failed" && row.failure_code !== null
        ? { code: Number(row.failure_code), reason: row.failure_reason ?? "failed", retryable: Number(row.retryable) === 1 }
        : null
  }),
  column: { ...recipientFields.column, input: "input", failure: "failure_code" }
}

/** The recipient columns `recipientColumns.fromRow` reads. */
export const recipientSelection = [
  ...(Object.values(recipientFields.column) as ReadonlyArray<keyof CampaignRecipientsTable>),
  "input",
  "failure_code",
  "failure_reason",
  "retryable"
] as const satisfies ReadonlyArray<keyof CampaignRecipientsTable>

const nullableEpoch = (v: number | string | null): number | null => (v === null ? null : Number(v))

/** Recipients with their campaign's store and mode: what a status report needs to match and advance one. */
export const recipientRefs = (k: Kysely<CampaignDatabase>) =>
  k
    .selectFrom("campaign_recipients as r")
    .innerJoin("campaigns as c", "c.id", "r.campaign_id")
    .select([
      "r.id",
      "r.campaign_id",
      "r.phone",
      "r.status",
      "r.sent_at",
      "r.delivered_at",
      "r.read_at",
      "r.operator_message_id",
      "c.store_id",
      "c.mode"
    ])

type RefRow = Awaited<ReturnType<ReturnType<typeof recipientRefs>["execute"]>>[number]

export const toRef = (row: RefRow): CampaignRepo.RecipientRef => ({
  id: row.id as CampaignRecipient.RecipientId,
  campaignId: row.campaign_id as Campaign.CampaignId,
  storeId: row.store_id as Tenant.StoreId,
  mode: row.mode,
  phone: row.phone,
  operatorMessageId: row.operator_message_id,
  progress: {
    status: row.status as CampaignRecipient.Status,
    sentAt: nullableEpoch(row.sent_at),
    deliveredAt: nullableEpoch(row.delivered_at),
    readAt: nullableEpoch(row.read_at)
  }
})
