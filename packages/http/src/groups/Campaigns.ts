/**
 * Campaign routes (spec §4.10): list, create, read, edit and delete drafts, recipients,
 * and the controls launch, pause, resume, cancel, retry, recalculate. Every route that
 * names a campaign answers 404 `resource_not_found` for another store's id exactly as for
 * an id that does not exist.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Campaign, CampaignRecipient, Pagination } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"

const IdPath = Schema.Struct({ id: Schema.String })

const CampaignPage = Schema.Struct({
  data: Schema.Array(Campaign.CampaignResource),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CampaignPage" })

const RecipientPage = Schema.Struct({
  data: Schema.Array(CampaignRecipient.RecipientResource),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CampaignRecipientPage" })

const control = <const Name extends "launch" | "pause" | "resume" | "cancel" | "retry" | "recalculate">(name: Name) =>
  HttpApiEndpoint.post(name, `/campaigns/:id/${name}`)
    .setPath(IdPath)
    .addSuccess(Campaign.CampaignResource)
    .addError(ApiError.ResourceNotFound)
    .addError(ApiError.InvalidState)

export class CampaignsGroup extends HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.get("list", "/campaigns")
      .setUrlParams(Schema.Struct({ status: Schema.optional(Campaign.Status), limit: Pagination.Limit, cursor: Schema.optional(Schema.String) }))
      .addSuccess(CampaignPage)
  )
  .add(HttpApiEndpoint.post("create", "/campaigns").setPayload(Campaign.CreateCampaign).addSuccess(Campaign.CampaignResource, { status: 201 }))
  .add(HttpApiEndpoint.get("get", "/campaigns/:id").setPath(IdPath).addSuccess(Campaign.CampaignResource).addError(ApiError.ResourceNotFound))
  .add(
    HttpApiEndpoint.patch("update", "/campaigns/:id")
      .setPath(IdPath)
      .setPayload(Campaign.UpdateCampaign)
      .addSuccess(Campaign.CampaignResource)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
  )
  .add(
    HttpApiEndpoint.del("remove", "/campaigns/:id")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }))
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
  )
  .add(
    HttpApiEndpoint.get("recipients", "/campaigns/:id/recipients")
      .setPath(IdPath)
      .setUrlParams(
        Schema.Struct({ status: Schema.optional(CampaignRecipient.Status), limit: Pagination.Limit, cursor: Schema.optional(Schema.String) })
      )
      .addSuccess(RecipientPage)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.post("addRecipients", "/campaigns/:id/recipients")
      .setPath(IdPath)
      .setPayload(CampaignRecipient.AddRecipients)
      .addSuccess(CampaignRecipient.AddRecipientsResult, { status: 201 })
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
  )
  .add(control("launch"))
  .add(control("pause"))
  .add(control("resume"))
  .add(control("cancel"))
  .add(control("retry"))
  .add(control("recalculate"))
  .middleware(Authentication)
  .prefix("/chat") {}
