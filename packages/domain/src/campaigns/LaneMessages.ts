/**
 * What one campaign lane keeps about the messages it sends (`worker/CampaignLane.ts` makes one
 * per lane run; the process keeps nothing, so two lanes, two workers or two servers in one
 * process share none of it). A cache of the lane's one sender number and store, bounded:
 *
 * - the template part of a campaign's recipients without parameters of their own, built once
 *   per campaign object (the operator client serializes one object once);
 * - the operator media ids that replaced a campaign's frozen ones after the operator refused
 *   them, frozen → fresh (`MediaResend`): the lane's later sends carry the fresh one. The
 *   fresh copy is also recorded in the database (`Medias.freshOperatorMediaId`), where another
 *   process's lane finds it when the operator refuses its send too (`MediaResend`);
 * - the re-uploads of our media under way or just made, shared by the sends refused with the
 *   same media meanwhile (`MediaResend`).
 */
import type { Effect } from "effect"
import type * as Errors from "../shared/Errors.js"
import type * as Campaign from "./Campaign.js"
import type { ClaimedRecipient } from "./CampaignRepo.js"
import { outboundFor, type TemplatePart, templateOf } from "./Lanes.js"
import type { OutboundMessage } from "../messaging/MessageOperator.js"

/** One re-upload of our media: when it started, and the upload (run once, its answer shared). */
export interface Reupload {
  readonly at: number
  readonly upload: Effect.Effect<string, Errors.OperatorRejected | Errors.OperatorUnavailable | Errors.ValidationFailed>
}

/** Entries kept of each map before it is cleared. */
export const BOUND = 1000

export class LaneMessages {
  private templates = new WeakMap<Campaign.Campaign, TemplatePart>()
  private readonly replaced = new Map<string, string>()
  /** Re-uploads by our media id (`MediaResend`). */
  readonly reuploads = new Map<string, Reupload>()

  /** The operator media id to send in place of a frozen one (itself unless a re-upload replaced it). */
  readonly currentOperatorId = (id: string | undefined): string | undefined => (id === undefined ? id : (this.replaced.get(id) ?? id))

  private readonly campaignPart = (campaign: Campaign.Campaign): TemplatePart => {
    let template = this.templates.get(campaign)
    if (template === undefined) {
      template = templateOf(campaign, campaign.parameters, this.currentOperatorId)
      this.templates.set(campaign, template)
    }
    return template
  }

  /** The message `recipient` receives (`CampaignLanes.outboundFor`), with this lane's media ids. */
  outboundFor(campaign: Campaign.Campaign, recipient: ClaimedRecipient): OutboundMessage {
    return outboundFor(campaign, recipient, this.currentOperatorId, this.campaignPart)
  }

  /** Records that `fresh` replaces the operator's `frozen` media id; the template parts built with it are forgotten. */
  replace(frozen: string, fresh: string): void {
    if (this.replaced.size >= BOUND) this.replaced.clear()
    this.replaced.set(frozen, fresh)
    this.templates = new WeakMap()
  }
}
