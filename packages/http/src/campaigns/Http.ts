/** The handlers of the campaign routes: each calls its use case, which answers the entity that the route's schema encodes. */
import { HttpApiBuilder } from "@effect/platform"
import { CampaignDryRun, CampaignRecipients, Campaigns } from "@switchboard/domain"
import * as FastLane from "../FastLane.js"
import { apiOf } from "../internal/Handlers.js"
import { CampaignsGroup } from "./Api.js"

const list = ({ urlParams }: { readonly urlParams: Parameters<typeof Campaigns.list>[0] }) => Campaigns.list(urlParams)

/** The routes the fast lane answers (`FastLane.ts`). */
export const CampaignsHot = [FastLane.get(CampaignsGroup, "list", list)]

export const CampaignsLive = HttpApiBuilder.group(apiOf(CampaignsGroup), "campaigns", (h) =>
  h
    .handle("list", list)
    .handle("create", ({ payload }) => Campaigns.create(payload))
    .handle("get", ({ path }) => CampaignDryRun.getWithCost(path.id))
    .handle("update", ({ path, payload }) => Campaigns.update(path.id, payload))
    .handle("remove", ({ path }) => Campaigns.remove(path.id))
    .handle("recipients", ({ path, urlParams }) => CampaignRecipients.listRecipients(path.id, urlParams))
    .handle("addRecipients", ({ path, payload }) => CampaignRecipients.addRecipients(path.id, payload))
    .handle("removeRecipient", ({ path }) => CampaignRecipients.removeRecipient(path.id, path.recipient_id))
    .handle("launch", ({ path }) => Campaigns.launch(path.id))
    .handle("pause", ({ path }) => Campaigns.pause(path.id))
    .handle("resume", ({ path }) => Campaigns.resume(path.id))
    .handle("cancel", ({ path }) => Campaigns.cancel(path.id))
    .handle("retry", ({ path }) => Campaigns.retry(path.id))
    .handle("recalculate", ({ path }) => Campaigns.recalculate(path.id))
    .handle("dryRun", ({ path }) => CampaignDryRun.dryRun(path.id))
)
