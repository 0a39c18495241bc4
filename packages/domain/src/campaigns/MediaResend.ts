/**
 * A campaign send whose media the operator no longer has (issue 32): the refusal codes that a
 * new upload may cure, and the resend with the media uploaded again, shared by the sends
 * refused for the same media meanwhile. Used by the campaign lane (`worker/CampaignLane.ts`).
 */
import { Clock, Effect } from "effect"
import * as Medias from "../media/Medias.js"
import { MessageOperator, type SendOptions } from "../messaging/MessageOperator.js"
import type * as Errors from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as RichSend from "../templates/RichSend.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import type * as Campaign from "./Campaign.js"
import type { ClaimedRecipient } from "./CampaignRepo.js"
import { forgetTemplate, outboundFor } from "./Lanes.js"

/** Our media in a recipient's send (the campaign's header or the recipient's own), frozen with the operator's ids. */
const ownMediaOf = (campaign: Campaign.Campaign, recipient: ClaimedRecipient): Array<RichSend.StoredHeader> => {
  const rich = recipient.parameters === null ? undefined : TemplateSend.richOf(recipient.parameters)
  const headers = [rich?.header ?? campaign.templateHeader, ...(rich?.cards ?? []).map((c) => c.header)]
  return headers.filter((h): h is RichSend.StoredHeader => h != null && h.type !== "location" && h.media_id !== undefined)
}

/**
 * Whether the operator's refusal of a recipient's send may be cured by uploading its media
 * again (`RichSend.MEDIA_REFUSAL_CODES`, and the send carries media of ours).
 */
export const mediaRefused = (
  campaign: Campaign.Campaign,
  recipient: ClaimedRecipient,
  error: Errors.OperatorRejected | Errors.OperatorUnavailable
): boolean => error._tag === "OperatorRejected" && RichSend.MEDIA_REFUSAL_CODES.has(error.code) && ownMediaOf(campaign, recipient).length > 0

/**
 * Recent uploads by our media id: sends refused for one media (many are in flight at once)
 * share one upload made within `REUPLOAD_SHARED_MS`; a refusal after that uploads again.
 */
const reuploads = new Map<
  string,
  { readonly at: number; readonly upload: Effect.Effect<string, Errors.OperatorRejected | Errors.OperatorUnavailable | Errors.ValidationFailed> }
>()
const REUPLOAD_SHARED_MS = 60_000

/**
 * After the operator refused a send's media (`mediaRefused`): uploads each of our media in it
 * again, once for all the sends refused with it meanwhile (the new id replaces the frozen one
 * for every later send of the process, `RichSend.replaceOperatorId`), then sends the
 * recipient's message again, once.
 */
export const resendWithFreshMedia = (account: OperatorAccount, campaign: Campaign.Campaign, recipient: ClaimedRecipient, options: SendOptions) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<Medias.Requirements>()
    for (const header of ownMediaOf(campaign, recipient)) {
      if (header.type === "location" || header.media_id === undefined) continue
      const mediaId = header.media_id
      const now = yield* Clock.currentTimeMillis
      let entry = reuploads.get(mediaId)
      if (entry === undefined || now - entry.at > REUPLOAD_SHARED_MS) {
        if (reuploads.size >= 1000) reuploads.clear()
        entry = {
          at: now,
          upload: Effect.runSync(
            Effect.cached(
              Effect.gen(function* () {
                const media = yield* Medias.named(campaign.storeId, mediaId, "header.media_id")
                return yield* Medias.freshOperatorMediaId(account, media)
              }).pipe(Effect.provide(context))
            )
          )
        }
        reuploads.set(mediaId, entry)
      }
      const failed = entry
      const fresh = yield* Effect.tapError(entry.upload, () => Effect.sync(() => reuploads.get(mediaId) === failed && reuploads.delete(mediaId)))
      if (header.operator_media_id !== undefined) RichSend.replaceOperatorId(header.operator_media_id, fresh)
    }
    forgetTemplate(campaign)
    return yield* (yield* MessageOperator).sendMessage(account, outboundFor(campaign, recipient), options)
  })
