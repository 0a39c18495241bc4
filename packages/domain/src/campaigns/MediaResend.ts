/**
 * A campaign send whose media the operator no longer has (issue 32): the refusal codes that a
 * new upload may cure, and the resend with the media uploaded again, shared by the sends
 * refused for the same media meanwhile. Used by the campaign lane (`worker/CampaignLane.ts`), with
 * its `LaneMessages`.
 */
import { Clock, Effect } from "effect"
import * as Medias from "../media/Medias.js"
import { MessageOperator, type SendOptions } from "../messaging/MessageOperator.js"
import type * as Errors from "../shared/Errors.js"
import type { StoreId } from "../shared/Tenant.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as RichSend from "../templates/RichSend.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import type * as Campaign from "./Campaign.js"
import type { ClaimedRecipient } from "./CampaignRepo.js"
import { BOUND, type LaneMessages } from "./LaneMessages.js"

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

/** How long one re-upload serves the sends refused with the same media: a refusal after that uploads again. */
export const REUPLOAD_SHARED_MS = 60_000

/**
 * A new operator copy of our media on the account's number, after the operator refused
 * `refused`: the copy recorded in the database within `REUPLOAD_SHARED_MS` when it is another
 * (another lane, another process, uploaded it again meanwhile), else a new upload, recorded.
 */
const reupload = (account: OperatorAccount, storeId: StoreId, mediaId: string, refused: string | undefined) =>
  Effect.gen(function* () {
    const media = yield* Medias.named(storeId, mediaId, "header.media_id")
    const now = yield* Clock.currentTimeMillis
    const copy = media.operatorCopies[account.phoneNumberId]
    if (copy !== undefined && copy.id !== refused && now - copy.uploadedAt <= REUPLOAD_SHARED_MS) return copy.id
    return yield* Medias.freshOperatorMediaId(account, media)
  })

/**
 * After the operator refused a send's media (`mediaRefused`): uploads each of our media in it
 * again, once for all the sends the lane had refused with it meanwhile (and not at all when
 * another process did within `REUPLOAD_SHARED_MS`: `reupload`); the new id replaces the frozen
 * one for the lane's later sends (`LaneMessages.replace`). Then sends the recipient's message
 * again, once.
 */
export const resendWithFreshMedia = (
  messages: LaneMessages,
  account: OperatorAccount,
  campaign: Campaign.Campaign,
  recipient: ClaimedRecipient,
  options: SendOptions
) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<Medias.Requirements>()
    const reuploads = messages.reuploads
    for (const header of ownMediaOf(campaign, recipient)) {
      if (header.type === "location" || header.media_id === undefined) continue
      const mediaId = header.media_id
      const now = yield* Clock.currentTimeMillis
      let entry = reuploads.get(mediaId)
      if (entry === undefined || now - entry.at > REUPLOAD_SHARED_MS) {
        if (reuploads.size >= BOUND) reuploads.clear()
        const refused = messages.currentOperatorId(header.operator_media_id)
        entry = {
          at: now,
          upload: Effect.runSync(Effect.cached(reupload(account, campaign.storeId, mediaId, refused).pipe(Effect.provide(context))))
        }
        reuploads.set(mediaId, entry)
      }
      const failed = entry
      const fresh = yield* Effect.tapError(entry.upload, () => Effect.sync(() => reuploads.get(mediaId) === failed && reuploads.delete(mediaId)))
      if (header.operator_media_id !== undefined) messages.replace(header.operator_media_id, fresh)
    }
    return yield* (yield* MessageOperator).sendMessage(account, messages.outboundFor(campaign, recipient), options)
  })
