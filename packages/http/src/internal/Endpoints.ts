/**
 * The endpoint shapes most groups repeat, declared once: a list of what a resource holds
 * (`GET /orders/:id/refunds`: the parent's id path, the list's parameters, a page, 404 for an
 * unknown parent), a read of one resource (`GET /refunds/:id`: its path, its resource, 404),
 * a create under a resource (`POST /orders/:id/refunds`: payload, 201 and the errors named)
 * an update of one (`PATCH /returns/:id`), a removal (`DELETE /feeds/:id`), a list of the
 * tenant's resources (`GET /calls`) and work accepted for later (202). Each is the same chain of `HttpApiEndpoint`
 * calls the group would write, so the API and its OpenAPI document do not change.
 */
import { HttpApiEndpoint } from "@effect/platform"
import { Pagination } from "@switchboard/domain"
import type { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { IdPath } from "./Path.js"

type Path = HttpApiEndpoint.PathSegment

/** A path's parameters: text (`IdPath` unless told). */
type PathSchema<PA, PI extends Readonly<Record<string, string | undefined>>> = Schema.Schema<PA, PI>

type Id = { readonly id: string }

// The helpers are generic in their schemas, where the compiler cannot prove what a group's
// own chain proves (that a path, a list's parameters, a payload encode as they must): the
// casts below pass them to `setPath`, `setUrlParams` and `setPayload` as they are.

/** `GET path` listing the tenant's resources, a page at a time (`Pagination.ListParams(position, filters)`), in pages named `page`. */
export const list = <const Name extends string, P, F extends Schema.Struct.Fields, A, I, R>(
  name: Name,
  path: Path,
  position: Schema.Schema<P, string>,
  filters: F,
  item: Schema.Schema<A, I, R>,
  page: string
) => {
  const params = Pagination.ListParams(position, filters)
  return HttpApiEndpoint.get(name, path)
    .setUrlParams<typeof params>(params as typeof params & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<typeof params>)
    .addSuccess(Pagination.PageOf(item, page))
}

/** `GET path` listing what the resource its path names holds, as `list` does, 404 when there is none. */
export const listOf = <
  const Name extends string,
  P,
  F extends Schema.Struct.Fields,
  A,
  I,
  R,
  PA = Id,
  PI extends Readonly<Record<string, string | undefined>> = Id
>(
  name: Name,
  path: Path,
  position: Schema.Schema<P, string>,
  filters: F,
  item: Schema.Schema<A, I, R>,
  page: string,
  pathSchema: PathSchema<PA, PI> = IdPath as unknown as PathSchema<PA, PI>
) => {
  const params = Pagination.ListParams(position, filters)
  return HttpApiEndpoint.get(name, path)
    .setPath<typeof pathSchema>(pathSchema as typeof pathSchema & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<typeof pathSchema>)
    .setUrlParams<typeof params>(params as typeof params & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<typeof params>)
    .addSuccess(Pagination.PageOf(item, page))
    .addError(ApiError.ResourceNotFound)
}

/** `GET path` reading the one resource its path names, 404 when there is none. */
export const getOne = <const Name extends string, A, I, R, PA = Id, PI extends Readonly<Record<string, string | undefined>> = Id>(
  name: Name,
  path: Path,
  resource: Schema.Schema<A, I, R>,
  pathSchema: PathSchema<PA, PI> = IdPath as unknown as PathSchema<PA, PI>
) =>
  HttpApiEndpoint.get(name, path)
    .setPath<typeof pathSchema>(pathSchema as typeof pathSchema & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<typeof pathSchema>)
    .addSuccess(resource)
    .addError(ApiError.ResourceNotFound)

const withPayload =
  <const Method extends "POST" | "PATCH">(method: Method, status: number | undefined) =>
  <
    const Name extends string,
    B,
    BI,
    BR,
    A,
    I,
    R,
    const Es extends ReadonlyArray<Schema.Schema.Any>,
    PA = Id,
    PI extends Readonly<Record<string, string | undefined>> = Id
  >(
    name: Name,
    path: Path,
    payload: Schema.Schema<B, BI, BR>,
    resource: Schema.Schema<A, I, R>,
    errors: Es,
    pathSchema: PathSchema<PA, PI> = IdPath as unknown as PathSchema<PA, PI>
  ) =>
    HttpApiEndpoint.make(method)(name, path)
      .setPath<typeof pathSchema>(pathSchema as typeof pathSchema & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<typeof pathSchema>)
      .setPayload<typeof payload>(payload as typeof payload & HttpApiEndpoint.HttpApiEndpoint.ValidatePayload<Method, typeof payload>)
      .addSuccess(resource, status === undefined ? undefined : { status })
      .pipe(ApiError.withErrors(...errors))

/** `POST path` making a resource under the one its path names: the payload, 201 and the resource, and `errors`. */
export const create = withPayload("POST", 201)

/** `PATCH path` changing the resource its path names: the payload, the resource, and `errors`. */
export const update = withPayload("PATCH", undefined)

/** `POST path` taking work to do after the answer (a request to a customer, a sandbox event): the payload, 202 and what was accepted, and `errors`. */
export const accepted = <const Name extends string, B, BI, BR, A, I, R, const Es extends ReadonlyArray<Schema.Schema.Any>>(
  name: Name,
  path: Path,
  payload: Schema.Schema<B, BI, BR>,
  answer: Schema.Schema<A, I, R>,
  errors: Es
) =>
  HttpApiEndpoint.post(name, path)
    .setPayload<typeof payload>(payload as typeof payload & HttpApiEndpoint.HttpApiEndpoint.ValidatePayload<"POST", typeof payload>)
    .addSuccess(answer, { status: 202 })
    .pipe(ApiError.withErrors(...errors))

/** `DELETE path` removing the resource its path names: what was deleted, and `errors`. */
export const remove = <
  const Name extends string,
  A,
  I,
  R,
  const Es extends ReadonlyArray<Schema.Schema.Any>,
  PA = Id,
  PI extends Readonly<Record<string, string | undefined>> = Id
>(
  name: Name,
  path: Path,
  answer: Schema.Schema<A, I, R>,
  errors: Es,
  pathSchema: PathSchema<PA, PI> = IdPath as unknown as PathSchema<PA, PI>
) =>
  HttpApiEndpoint.del(name, path)
    .setPath<typeof pathSchema>(pathSchema as typeof pathSchema & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<typeof pathSchema>)
    .addSuccess(answer)
    .pipe(ApiError.withErrors(...errors))
