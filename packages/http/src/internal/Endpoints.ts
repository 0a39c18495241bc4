/**
 * The endpoint shapes most groups repeat, declared once: a list of what a resource holds
 * (`GET /orders/:id/refunds`: the parent's id path, the list's parameters, a page, 404 for an
 * unknown parent) and a read of one resource (`GET /refunds/:id`: its path, its resource, 404).
 * Each is the same chain of `HttpApiEndpoint` calls the group would write, so the API and its
 * OpenAPI document do not change.
 */
import { HttpApiEndpoint } from "@effect/platform"
import { Pagination } from "@switchboard/domain"
import type { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { IdPath } from "./Path.js"

/** `GET path` listing what the resource `:id` holds, a page at a time (`Pagination.ListParams(position, filters)`), in pages named `page`. */
export const listOf = <const Name extends string, P, F extends Schema.Struct.Fields, A, I, R>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  list: { readonly position: Schema.Schema<P, string>; readonly filters: F; readonly item: Schema.Schema<A, I, R>; readonly page: string }
) => {
  // with generic filters the compiler cannot prove the parameters encode to strings (ListParams' own fields do; a filter is a string parameter)
  const params = Pagination.ListParams(list.position, list.filters)
  return HttpApiEndpoint.get(name, path)
    .setPath(IdPath)
    .setUrlParams<typeof params>(params as typeof params & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<typeof params>)
    .addSuccess(Pagination.PageOf(list.item, list.page))
    .addError(ApiError.ResourceNotFound)
}

/** `GET path` reading the one resource its path names (`IdPath` unless told), 404 when there is none. */
export const getOne = <
  const Name extends string,
  A,
  I,
  R,
  PA = { readonly id: string },
  PI extends Readonly<Record<string, string | undefined>> = { readonly id: string }
>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  resource: Schema.Schema<A, I, R>,
  pathSchema: Schema.Schema<PA, PI> = IdPath as unknown as Schema.Schema<PA, PI>
) =>
  HttpApiEndpoint.get(name, path)
    .setPath<typeof pathSchema>(pathSchema as typeof pathSchema & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<typeof pathSchema>)
    .addSuccess(resource)
    .addError(ApiError.ResourceNotFound)
