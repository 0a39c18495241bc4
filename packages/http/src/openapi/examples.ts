/**
 * What the OpenAPI document shows for each operation: a summary, and an example of the
 * request (its body, or its parameters) and of the success answer. The examples are real
 * answers of the server (ids and times from a sandbox run); the OpenAPI test checks each
 * one against its operation's schema, so an example cannot drift from the schemas.
 */

const time = "2026-05-04T09:30:00.000Z"
const later = "2026-05-04T09:30:02.000Z"

const template = {
  id: "tpl_01M859WTT8JJP35B2H4334CHPD",
  name: "order_shipped",
  language: "en_US",
  category: "UTILITY",
  status: "APPROVED",
  components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }],
  rejected_reason: null,
  quality_score: "UNKNOWN",
  created_at: time,
  updated_at: later
}

const message = {
  id: "msg_01M859WWR4B7TY6S6Y9WXT9C08",
  to: "+15551230007",
  type: "text",
  status: "read",
  operator_message_id: "wamid.iTEFg9icwRquUvpWhtYV8fosPZie0Naa",
  error: null,
  created_at: time,
  updated_at: later
}

const customer = {
  id: "cus_01M859WVV6ZFEWX03WTWFK76RZ",
  phone: "+15551230007",
  wa_id: "15551230007",
  profile_name: "Ana",
  last_message_at: time,
  window_open: true,
  window_expires_at: "2026-05-05T09:30:00.000Z",
  opted_out: false,
  created_at: time
}

const campaign = {
  id: "cmp_01M859WYCJRKH5XFVVK5FNE2QJ",
  name: "May digest",
  status: "draft",
  template: { name: "order_shipped", language: "en_US", parameters: ["friend", "A-1"], header_parameters: [], buttons: [], category: null },
  messages_per_second: null,
  scheduled_at: null,
  paused_reason: null,
  limited_until: null,
  send_window: null,
  total: 0,
  pending: 0,
  skipped: 0,
  cancelled: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  launched_at: null,
  completed_at: null,
  cancelled_at: null,
  created_at: time,
  updated_at: time
}

const active = {
  ...campaign,
  status: "active",
  template: { ...campaign.template, category: "UTILITY" },
  total: 2,
  pending: 2,
  launched_at: later,
  updated_at: later
}

const recipient = {
  id: "rcp_01M859WYFD6EYY4JQN3BV78XZV",
  phone: "+15551110003",
  input: "+15551110003",
  customer_id: null,
  status: "read",
  skip_reason: null,
  failure: null,
  operator_message_id: "wamid.wsV3WVPs6EDHkrlzx0Wm_zdftctkplZB",
  parameters: ["Ana", "A-2"],
  next_attempt_at: null,
  sent_at: later,
  delivered_at: later,
  read_at: later,
  updated_at: later
}

const endpoint = {
  id: "whe_01M859WX3D5Q6Y2V0K8E7B1C4N",
  url: "https://shop.example.org/hooks/switchboard",
  events: ["message.status", "message.received"],
  status: "enabled",
  disabled_reason: null,
  created_at: time,
  updated_at: time
}

const delivery = {
  id: "dlv_01M859WZ6J2R8T4V6X8Z0B2D4F",
  endpoint_id: endpoint.id,
  event_id: "evt_01M859WZ5H1Q7S3U5W7Y9A1C3E",
  event_type: "message.status",
  attempt: 1,
  status_code: 200,
  error: null,
  duration_ms: 42,
  created_at: later
}

/** An example delivery attempt (`GET /chat/webhook-deliveries`). */
export const deliveryExample = delivery

const page = (item: unknown, next_cursor: string | null = null) => ({ data: [item], next_cursor })

const createTemplate = {
  templateData: {
    name: "order_shipped",
    category: "UTILITY",
    language: "en_US",
    components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
  }
}

const control = (summary: string, response: unknown) => ({ summary, response })

export interface OperationDoc {
  readonly summary: string
  readonly description?: string
  /** The request body (for operations that take one). */
  readonly request?: unknown
  /** The success answer (none for a 204). */
  readonly response?: unknown
}

/** By operation id (`group.endpoint`). */
export const operations: Record<string, OperationDoc> = {
  "templates.list": {
    summary: "List templates",
    description: "Both keys list the store's operator templates; filter by `status`.",
    response: page(template)
  },
  "templates.create": {
    summary: "Create a template",
    description: "Submits the template to the operator for review; it starts `PENDING`.",
    request: createTemplate,
    response: { ...template, status: "PENDING", quality_score: null, updated_at: time }
  },
  "templates.sync": {
    summary: "Sync templates with the operator",
    description: "Pulls the operator's templates and their review status.",
    response: { synced: 1, changed: 1, data: [template], next_cursor: null }
  },
  "templates.get": {
    summary: "Get a template by name",
    description:
      "The store's templates of that name, one per language, in order of language (a page, like the list); 404 when the store has none of that name.",
    response: { data: [template, { ...template, id: "tpl_01M859WTT8JJP35B2H4334CHPE", language: "es_MX" }], next_cursor: null }
  },
  "templates.remove": {
    summary: "Delete a template",
    description: "Deletes every language of the template name.",
    response: { name: "order_shipped", deleted: true, languages: ["en_US"] }
  },
  "messages.send": {
    summary: "Send a message",
    description: "Free-form messages need the customer's 24-hour window; templates do not.",
    request: { to: "+15551230007", type: "text", text: { body: "Hi!" } },
    response: { ...message, status: "accepted", updated_at: time }
  },
  "messages.list": { summary: "List messages", description: "Newest first; filter by `status` and `to`.", response: page(message) },
  "messages.get": { summary: "Get a message", response: message },
  "customers.list": {
    summary: "List customers",
    description: "Everyone who wrote to the store, with their 24-hour window.",
    response: page(customer)
  },
  "customers.get": { summary: "Get a customer", response: customer },
  "optOuts.list": { summary: "List opt-outs", response: page({ phone: "+15551230099", source: "api", created_at: time }) },
  "optOuts.add": {
    summary: "Opt a contact out",
    request: { phone: "+15551230099" },
    response: { phone: "+15551230099", opted_out: true, created: true }
  },
  "optOuts.remove": { summary: "Opt a contact back in", response: { phone: "+15551230099", opted_out: false } },
  "webhooks.create": {
    summary: "Register a webhook endpoint",
    description: "The signing secret is shown only in this answer.",
    request: { url: endpoint.url, events: endpoint.events },
    response: { ...endpoint, secret: "whsec_MfKQ9r8GKYqdPzkSJ3uXDQ7QFpRcW1Tz" }
  },
  "webhooks.list": { summary: "List webhook endpoints", response: page(endpoint) },
  "webhooks.get": { summary: "Get a webhook endpoint", response: endpoint },
  "webhooks.update": {
    summary: "Change a webhook endpoint",
    request: { events: ["message.status"] },
    response: { ...endpoint, events: ["message.status"], updated_at: later }
  },
  "webhooks.remove": { summary: "Delete a webhook endpoint", response: { id: endpoint.id, deleted: true } },
  "webhooks.deliveries": { summary: "List a webhook endpoint's delivery attempts", response: page(delivery) },
  "sandbox.inboundMessage": {
    summary: "Play a customer's inbound message (test keys)",
    description: "The emulator sends it to the operator webhook, signed, as the operator would. `STOP` opts the sender out.",
    request: { from: "+15551230007", text: "hello", profile_name: "Ana" },
    response: { accepted: true, operator_message_id: "wamid.iC5sGe25BHRCFxTfYPPzrVqRnAJaBswO", customer_id: customer.id }
  },
  "campaigns.list": { summary: "List campaigns", description: "Filter by `status`.", response: page(campaign) },
  "campaigns.create": {
    summary: "Create a campaign draft",
    request: { name: "May digest", template: { name: "order_shipped", language: "en_US", parameters: ["friend", "A-1"] } },
    response: campaign
  },
  "campaigns.get": { summary: "Get a campaign", description: "With its counters: sent, delivered, read, failed.", response: active },
  "campaigns.update": { summary: "Change a campaign draft", request: { name: "May digest" }, response: campaign },
  "campaigns.remove": { summary: "Delete a campaign draft", response: { id: campaign.id, deleted: true } },
  "campaigns.recipients": { summary: "List a campaign's recipients", description: "Filter by `status`.", response: page(recipient, "c2VxOjA") },
  "campaigns.addRecipients": {
    summary: "Add recipients to a campaign",
    description: "Up to 10,000 per request, by phone or customer id, with per-recipient parameters.",
    request: { phones: ["+15551110003", "+15551110004"], parameters: { "+15551110003": ["Ana", "A-2"] } },
    response: { added: 2, skipped: 0, total: 2, skipped_by_reason: { opted_out: 0, duplicate: 0, invalid_number: 0, unknown_customer: 0 } }
  },
  "campaigns.removeRecipient": {
    summary: "Remove a recipient from a campaign draft",
    description:
      "Answers 204 and takes the recipient off the counters; 409 `invalid_state` once the campaign is launched; 404 for a recipient the campaign does not have."
  },
  "campaigns.launch": control("Launch a campaign", active),
  "campaigns.pause": control("Pause a campaign", { ...active, status: "paused" }),
  "campaigns.resume": control("Resume a paused campaign", active),
  "campaigns.cancel": control("Cancel a campaign", { ...active, status: "cancelled", pending: 0, cancelled: 2, cancelled_at: later }),
  "campaigns.retry": control("Retry a campaign's failed recipients", active),
  "campaigns.recalculate": control("Recount a campaign's counters", active),
  "campaigns.dryRun": {
    summary: "Dry-run a campaign before launch",
    description:
      "Sends nothing. Answers the audience (duplicates, opted-out, invalid and operator-blocked numbers dropped), the messaging limit (tier, recipients outside the customer window, what the rolling 24 hours have left, the days needed), the duration at the number's pace and the estimated cost from the rate card; with a `send_window`, `audience.outside_send_window` counts the recipients outside it now. 409 `invalid_state` once launched.",
    response: {
      audience: { total: 400, unique: 400, to_send: 400, dropped: { duplicate: 0, opted_out: 0, invalid_number: 0, blocked_by_operator_policy: 0 } },
      messaging_limit: { tier: "TIER_250", outside_window: 400, remaining_24h: 250, days_needed: 2 },
      duration_seconds: 5,
      cost: { currency: "USD", estimated: 29.28, by_category: { marketing: 29.28 }, by_country: { AU: 29.28 }, rate_card_date: "2025-07-01" }
    }
  },
  "operatorWebhook.handshake": {
    summary: "Operator webhook subscription handshake",
    description: "Answers `hub.challenge` when `hub.verify_token` matches.",
    response: "1158201444"
  },
  "operatorWebhook.receive": {
    summary: "Receive the operator's webhook events",
    description: "Signed by the operator (`X-Hub-Signature-256` over the raw body); no API key.",
    request: {
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
                statuses: [
                  { id: "wamid.iTEFg9icwRquUvpWhtYV8fosPZie0Naa", status: "delivered", timestamp: "1777887002", recipient_id: "15551230007" }
                ]
              }
            }
          ]
        }
      ]
    },
    response: { received: true }
  },
  "health.healthz": { summary: "Liveness", description: "The process is up.", response: { status: "ok" } },
  "health.readyz": {
    summary: "Readiness",
    description:
      "The database is reachable and no runnable job has waited longer than SWITCHBOARD_READY_MAX_JOB_AGE (60 s): 200 with the oldest runnable job's wait in seconds, else 503 with the reason and that wait.",
    response: { status: "ok", oldest_job_age_seconds: 0 }
  }
}

/** Examples of path parameters, by name. */
export const pathParameters: Record<string, string> = {
  name: "order_shipped",
  phone: "+15551230099",
  handle: "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q",
  syncId: "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q",
  uploadId: "fup_01M85GR5W1X2Y3Z4A5B6C7D8E9",
  refundId: "rfd_01M85GK8TB3E8BH2R1WY18AD90",
  recipient_id: recipient.id,
  cancellationId: "ccl_01M85GK8TB3E8BH2R1WY18AD91",
  shipmentId: "shm_01M85GK8TB3E8BH2R1WY18AD93"
}

/** Examples of `id` path parameters, by the collection that names them. */
export const ids: Record<string, string> = {
  messages: message.id,
  customers: customer.id,
  webhooks: endpoint.id,
  campaigns: campaign.id
}
