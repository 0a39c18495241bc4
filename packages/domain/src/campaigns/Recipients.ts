/**
 * The recipients routes of a campaign: `POST /chat/campaigns/{id}/recipients` (ingest),
 * `GET /chat/campaigns/{id}/recipients` (in insertion order, by a cursor over `seq`) and
 * `DELETE /chat/campaigns/{id}/recipients/{recipient_id}` (from a draft). Like
 * every campaign route, they reach storage through `CampaignRepo` in the caller's tenant.
 */
import { Effect, Either, Option } from "effect"
import { CustomerRepo, OptOutRepo } from "../messaging/MessagingRepo.js"
import * as Errors from "../shared/Errors.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Campaign from "./Campaign.js"
import { CampaignRepo, type NewRecipient } from "./CampaignRepo.js"
import { find, refusedNow } from "./Campaigns.js"
import * as Recipient from "./Recipient.js"
import * as Store from "../stores/Store.js"
import * as RichSend from "../templates/RichSend.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import { RecipientId } from "./Recipient.js"

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/**
 * `n` ids after `head` (the prefix and the time part), the 16 characters after it counting up
 * by one from `digits` (Crockford digits, 0 to 31; `digits` is advanced past them). The first
 * 15 characters are kept as one string while only the last one changes: an id is one
 * concatenation.
 */
export const idRun = (head: string, digits: Array<number>, n: number): Array<string> => {
  const ids = new Array<string>(n)
  let stem = ""
  for (let i = 0; i < n; i++) {
    if (stem === "") {
      stem = head
      for (let k = 0; k < 15; k++) stem += CROCKFORD[digits[k]]
    }
    ids[i] = stem + CROCKFORD[digits[15]]
    for (let k = 15; k >= 0; k--) {
      if (digits[k] < 31) {
        digits[k]++
        if (k < 15) stem = ""
        break
      }
      digits[k] = 0
    }
  }
  return ids
}

/**
 * Ids for a batch of recipients, shaped as `RecipientId.generate` shapes them (the time of
 * now, then 16 characters: a random 80-bit start incremented by one per id), so they are
 * unique, sort in the order given (an index on them grows at its end) and cost a fraction of
 * as many single generations.
 */
export const recipientIds = (n: number): Effect.Effect<Array<RecipientId>> =>
  Effect.map(RecipientId.generate, (first) => {
    const bytes = new Uint8Array(16)
    globalThis.crypto.getRandomValues(bytes)
    const digits = Array.from(bytes, (b, i) => (i < 2 ? b & 15 : b & 31)) // headroom: never wraps
    return idRun(first.slice(0, 14), digits, n) as Array<RecipientId>
  })

/**
 * The phones of a request seen so far, to skip a repeated one: `add` answers whether the phone
 * is new, as a `Set` would, and appends a new one to `seen` (in the order given). While the
 * phones arrive in strictly ascending order (the usual list: sorted, without repeats) a
 * phone above the last one is new without a set (10,000 entries of a `Set` cost a third of a
 * microsecond each, and memory for the life of the request); the first phone out of order
 * fills the set with those seen, which answers from then on.
 */
export const phoneSeen = (seen: Array<string>): { readonly add: (phone: string) => boolean } => {
  let set: Set<string> | undefined
  return {
    add: (phone) => {
      if (set === undefined) {
        if (seen.length === 0 || seen[seen.length - 1] < phone) {
          seen.push(phone)
          return true
        }
        set = new Set(seen)
      }
      if (set.has(phone)) return false
      set.add(phone)
      seen.push(phone)
      return true
    }
  }
}

/**
 * Checks the entries' own parameters: each names an entry and matches the campaign's: as
 * many values (positional), or the same names (a NAMED template's, by name). Rich ones
 * (`TemplateSend.RecipientRich`) are checked later, against the template (`freezeRich`).
 */
const checkOwnParameters = (
  input: Recipient.AddRecipients,
  campaign: Campaign.Campaign,
  own: Readonly<Record<string, TemplateSend.RecipientParameters>>
) => {
  const entries = new Set([...input.phones, ...input.customerIds])
  const issues: Array<Errors.FieldIssue> = []
  const names = Array.isArray(campaign.parameters) ? undefined : Object.keys(campaign.parameters).sort()
  for (const key of Object.keys(own)) {
    const given = own[key]
    if (!entries.has(key)) issues.push({ path: `parameters.${key}`, message: "matches no entry of phones or customerIds" })
    else if (TemplateSend.richOf(given) !== undefined) {
      // checked against the template
    } else if (names !== undefined) {
      if (Array.isArray(given) || Object.keys(given).sort().join(",") !== names.join(",")) {
        issues.push({
          path: `parameters.${key}`,
          message: `must be an object with the campaign's parameter names: ${names.map((n) => `"${n}"`).join(", ")}`
        })
      }
    } else if (!Array.isArray(given) || given.length !== (campaign.parameters as ReadonlyArray<string>).length) {
      issues.push({
        path: `parameters.${key}`,
        message: `must hold ${(campaign.parameters as ReadonlyArray<string>).length} value(s), as many as the campaign's template parameters`
      })
    }
    if (issues.length >= 20) break
  }
  return issues.length === 0 ? Effect.void : Effect.fail(Errors.ValidationFailed.all(issues))
}

/**
 * The entries' rich parameters, checked like a single send's (`TemplateSend.check`, the
 * campaign's parameters filling what an entry does not give) against the campaign's template,
 * then frozen: our media with the operator's media id on the sender's number, uploaded once
 * per distinct media (`RichSend.resolve` with one cache for the request), so the lane never
 * uploads. Answers the frozen parameters by entry.
 */
const freezeRich = (campaign: Campaign.Campaign, rich: ReadonlyArray<readonly [string, TemplateSend.RecipientRich]>) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const template = yield* (yield* TemplateRepo).find(tenant, campaign.templateName, campaign.templateLanguage)
    if (Option.isNone(template)) {
      return yield* Errors.ValidationFailed.of(
        `parameters.${rich[0][0]}`,
        `a recipient's header, cards or offer are checked against the campaign's template: the store has no template '${campaign.templateName}' in ${campaign.templateLanguage}`
      )
    }
    const components = template.value.components
    const issues: Array<Errors.FieldIssue> = []
    for (const [key, own] of rich) {
      issues.push(
        ...TemplateSend.check(
          components,
          {
            parameters: own.parameters ?? campaign.parameters,
            header_parameters: campaign.headerParameters,
            header: own.header ?? (campaign.templateHeader === null ? undefined : RichSend.callerHeader(campaign.templateHeader)),
            buttons: TemplateSend.mergeButtons(campaign.buttonParameters, own.buttons),
            cards: own.cards,
            limited_time_offer: own.limited_time_offer
          },
          `parameters.${key}`
        )
      )
      if (issues.length >= 20) break
    }
    if (issues.length > 0) return yield* Errors.ValidationFailed.all(issues.slice(0, 20))
    const account = Store.accountFor(store, campaign.mode)
    const cache = new Map<string, string>()
    const frozen = new Map<string, TemplateSend.FrozenRich>()
    for (const [key, own] of rich) {
      const resolved = yield* RichSend.resolve(tenant.storeId, account, own, `parameters.${key}`, { cache })
      frozen.set(key, {
        ...own,
        ...(own.header === undefined ? {} : { header: frozenHeader(own.header, resolved.header) }),
        ...(own.cards === undefined
          ? {}
          : {
              cards: own.cards.map((card, i) => ({
                ...card,
                header: frozenHeader(card.header, resolved.cards?.[i]?.header) as typeof RichSend.StoredMediaHeader.Type
              }))
            })
      })
    }
    return frozen
  })

/** A header as given, with the operator's media id of our media (and a document's file name from the media). */
const frozenHeader = (given: RichSend.HeaderParameter, resolved: RichSend.SendHeader | undefined): RichSend.StoredHeader => {
  if (given.type === "location" || given.media_id === undefined || resolved === undefined || resolved.type === "location") return given
  return {
    ...given,
    ...(resolved.id === undefined ? {} : { operator_media_id: resolved.id }),
    ...(resolved.filename === undefined ? {} : { filename: resolved.filename })
  }
}

/**
 * `POST /chat/campaigns/{id}/recipients` (draft or scheduled). Every entry becomes a row:
 * pending, or skipped with its reason (invalid number, unknown customer, duplicate within
 * the request or of an existing recipient, opted out). One customer lookup and one opt-out
 * lookup per request, then multi-row inserts. Answers what was added (`AddRecipientsResult`).
 */
export const addRecipients = (raw: string, input: Recipient.AddRecipients) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    yield* Either.match(Campaign.transition(campaign.status, "add recipients to"), { onLeft: Effect.fail, onRight: () => Effect.void })
    const count = input.phones.length + input.customerIds.length
    if (count === 0) return yield* Errors.ValidationFailed.of("phones", "give at least one entry in phones or customerIds")
    if (count > Recipient.MAX_PER_REQUEST) {
      return yield* Errors.ValidationFailed.of(
        "phones",
        `at most ${Recipient.MAX_PER_REQUEST} entries (phones and customerIds together) per request, got ${count}`
      )
    }
    const own: Record<string, TemplateSend.FrozenParameters> = input.parameters === undefined ? {} : { ...input.parameters }
    const hasOwn = Object.keys(own).length > 0
    if (hasOwn) {
      yield* checkOwnParameters(input, campaign, input.parameters ?? {})
      const rich: Array<readonly [string, TemplateSend.RecipientRich]> = []
      for (const [key, given] of Object.entries(input.parameters ?? {})) {
        const r = TemplateSend.richOf(given)
        if (r !== undefined) rich.push([key, r])
      }
      if (rich.length > 0) {
        const frozen = yield* freezeRich(campaign, rich)
        for (const [key, value] of frozen) own[key] = value
      }
    }

    const customers = new Map<string, string>()
    if (input.customerIds.length > 0) {
      const found = yield* (yield* CustomerRepo).findManyByIds(tenant, [...new Set(input.customerIds)])
      for (const c of found) customers.set(c.id, c.phone)
    }

    const rows: Array<NewRecipient> = []
    const candidates: Array<string> = []
    const seen = phoneSeen(candidates)
    const ids = yield* recipientIds(count)
    const entry = (phone: string | null, given: string, customerId: string | null, invalid: Recipient.SkipReason): void => {
      const id = ids[rows.length]
      if (phone === null) {
        rows.push({ id, phone: null, input: given, customerId, parameters: null, status: "skipped", skipReason: invalid })
      } else if (!seen.add(phone)) {
        rows.push({ id, phone: null, input: given, customerId, parameters: null, status: "skipped", skipReason: "duplicate" })
      } else {
        const params = hasOwn && Object.hasOwn(own, given) ? own[given] : null
        rows.push({ id, phone, input: given, customerId, parameters: params, status: "pending", skipReason: null })
      }
    }
    for (const given of input.phones) entry(Phone.normalize(given) ?? null, given, null, "invalid_number")
    for (const customerId of input.customerIds) entry(customers.get(customerId) ?? null, customerId, customerId, "unknown_customer")

    const optedOut = candidates.length > 0 ? yield* (yield* OptOutRepo).filterOptedOut(tenant, candidates) : new Set<string>()
    const final =
      optedOut.size === 0
        ? rows
        : rows.map(
            (r): NewRecipient =>
              r.status === "pending" && optedOut.has(r.phone!) ? { ...r, status: "skipped", skipReason: "opted_out", parameters: null } : r
          )

    const added = yield* (yield* CampaignRepo).addRecipients(tenant, campaign.id, Campaign.sources("add recipients to"), final, yield* Time.now)
    if (Option.isNone(added)) return yield* refusedNow(tenant, campaign.id, "add recipients to")
    return { ...added.value, skipped: { ...Recipient.noneSkipped(), ...added.value.skipped } }
  })

/**
 * `DELETE /chat/campaigns/{id}/recipients/{recipient_id}` (draft only): the recipient is gone,
 * and off the campaign's counters. A recipient id that is malformed, unknown or another
 * campaign's answers 404; a campaign past its draft answers 409 `invalid_state`.
 */
export const removeRecipient = (raw: string, rawRecipient: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    const notFound = new Errors.ResourceNotFound({ resource: "recipient", id: rawRecipient })
    if (!RecipientId.is(rawRecipient)) return yield* notFound
    const outcome = yield* (yield* CampaignRepo).removeRecipient(tenant, campaign.id, rawRecipient, Campaign.sources("remove recipients from"))
    if (outcome === "not_found") return yield* notFound
    if (outcome === "refused") return yield* refusedNow(tenant, campaign.id, "remove recipients from")
  })

/** `GET /chat/campaigns/{id}/recipients`: in insertion order, optionally one status (`?status=failed` with reasons). */
export const listRecipients = (
  raw: string,
  query: { readonly status?: Recipient.Status | undefined; readonly limit: number; readonly cursor?: number | undefined }
) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    const slice = yield* (yield* CampaignRepo).listRecipients(tenant, campaign.id, {
      status: query.status,
      limit: query.limit,
      afterSeq: query.cursor
    })
    return Pagination.pageOf(slice, Recipient.Position, (r) => r.seq)
  })
