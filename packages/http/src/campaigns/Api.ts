/**
 * Campaign routes (spec §4.10): list, create, read, edit and delete drafts, recipients (add,
 * list, remove from a draft), the controls launch, pause, resume, cancel, retry,
 * recalculate, and the dry run before launch (audience, messaging limit, duration, cost). Every route that
 * names a campaign answers 404 `resource_not_found` for a malformed id, an unknown one or
 * another store's, the same answer. Schemas come from the domain: handlers return the
 * entities and these schemas encode them.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Campaign, CampaignDryRun, CampaignRecipient, Pagination } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"

const CampaignPage = Pagination.PageOf(Campaign.CampaignResource, "CampaignPage")
const RecipientPage = Pagination.PageOf(CampaignRecipient.RecipientResource, "CampaignRecipientPage")

const control = <const Name extends "launch" | "pause" | "resume" | "cancel" | "retry" | "recalculate">(name: Name) =>
  HttpApiEndpoint.post(name, `/campaigns/:id/${name}`)
    .setPath(IdPath)
    .addSuccess(Campaign.CampaignResource)
    .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ApiError.InvalidState))

export class CampaignsGroup extends HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.get("list", "/campaigns")
      .setUrlParams(Pagination.ListParams(Campaign.CampaignId.schema, { status: Schema.optional(Campaign.Status) }))
      .addSuccess(CampaignPage)
  )
  .add(Endpoints.create("create", "/campaigns", Campaign.CreateCampaign, Campaign.CampaignResource, []))
  .add(Endpoints.getOne("get", "/campaigns/:id", Campaign.CampaignResource))
  .add(
    Endpoints.update("update", "/campaigns/:id", Campaign.UpdateCampaign, Campaign.CampaignResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState
    ])
  )
  .add(Endpoints.remove("remove", "/campaigns/:id", Campaign.Deleted, [ApiError.ResourceNotFound, ApiError.InvalidState]))
  .add(
    HttpApiEndpoint.get("recipients", "/campaigns/:id/recipients")
      .setPath(IdPath)
      .setUrlParams(Pagination.ListParams(CampaignRecipient.Position, { status: Schema.optional(CampaignRecipient.Status) }))
      .addSuccess(RecipientPage)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    Endpoints.createIn("addRecipients", "/campaigns/:id/recipients", CampaignRecipient.AddRecipients, CampaignRecipient.AddRecipientsResult, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState
    ])
      // a recipient's own media goes to the operator when it is added
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.del("removeRecipient", "/campaigns/:id/recipients/:recipient_id")
      .setPath(Schema.Struct({ id: Schema.String, recipient_id: Schema.String }))
      .addSuccess(HttpApiSchema.NoContent)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ApiError.InvalidState))
  )
  .add(control("launch").addError(ApiError.OperatorRejected).addError(ApiError.OperatorUnavailable))
  .add(control("pause"))
  .add(control("resume"))
  .add(control("cancel"))
  .add(control("retry"))
  .add(control("recalculate"))
  .add(
    HttpApiEndpoint.post("dryRun", "/campaigns/:id/dry-run")
      .setPath(IdPath)
      .addSuccess(CampaignDryRun.DryRunResult)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
  )
  .middleware(Authentication)
  .prefix("/chat") {}
