import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Pagination, Template } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"

export const TemplatePage = Schema.Struct({
  data: Schema.Array(Template.TemplateResource),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TemplatePage" })

export const CreateTemplate = Schema.Struct({
  templateData: Template.TemplateData
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "CreateTemplate" })

export const SyncResult = Schema.Struct({
  synced: Schema.Int,
  changed: Schema.Int,
  data: Schema.Array(Template.TemplateResource),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TemplateSync" })

export const Deleted = Schema.Struct({
  name: Schema.String,
  deleted: Schema.Literal(true),
  languages: Schema.Array(Schema.String)
}).annotations({ identifier: "TemplateDeleted" })

export class TemplatesGroup extends HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(
        Schema.Struct({
          status: Schema.optional(Template.Status),
          limit: Pagination.Limit,
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(TemplatePage)
  )
  .add(
    HttpApiEndpoint.post("create", "/templates")
      .setPayload(CreateTemplate)
      .addSuccess(Template.TemplateResource, { status: 201 })
      .addError(ApiError.ResourceAlreadyExists)
      .addError(ApiError.Forbidden)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.post("sync", "/templates/sync")
      .addSuccess(SyncResult)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.del("remove", "/templates/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .addSuccess(Deleted)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.Forbidden)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .middleware(Authentication)
  .prefix("/chat") {}
