/**
 * Template routes (spec §4.2): list, create (submitted to the operator for review), sync
 * with the operator, read and delete every language of a name.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Pagination, Template, Templates } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Authentication } from "../Authentication.js"

export const TemplatePage = Pagination.PageOf(Template.TemplateResource, "TemplatePage")

export class TemplatesGroup extends HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.get("list", "/templates")
      .setUrlParams(Pagination.ListParams(Template.TemplateId.schema, { status: Schema.optional(Template.Status) }))
      .addSuccess(TemplatePage)
  )
  .add(
    Endpoints.create("create", "/templates", Template.CreateTemplate, Template.TemplateResource, [
      ApiError.ResourceAlreadyExists,
      ApiError.Forbidden,
      ...ApiError.operatorErrors
    ])
  )
  .add(HttpApiEndpoint.post("sync", "/templates/sync").addSuccess(Template.SyncResult).addError(ApiError.OperatorUnavailable))
  .add(
    HttpApiEndpoint.get("get", "/templates/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .setUrlParams(Pagination.ListParams(Templates.LanguagePosition, {}))
      .addSuccess(TemplatePage)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.del("remove", "/templates/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .addSuccess(Template.Deleted)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ApiError.Forbidden, ...ApiError.operatorErrors))
  )
  .middleware(Authentication)
  .prefix("/chat") {}
