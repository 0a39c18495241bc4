/**
 * The endpoint shapes most groups repeat, declared once: a list of the tenant's resources
 * (`GET /calls`: the list's parameters and a page), a list of what a resource holds
 * (`GET /orders/:id/refunds`: the same, and 404 for an unknown parent), a read of one resource
 * (`GET /refunds/:id`: its path, its resource, 404), a create (`POST /catalogs`: payload,
 * 201) or one under a resource (`POST /orders/:id/refunds`), an update (`PATCH /returns/:id`), a removal
 * (`DELETE /feeds/:id`) and work accepted for later (`POST …`, 202), each with the errors it
 * names. Each is the same chain of `HttpApiEndpoint` calls the group would write, so the API
 * and its OpenAPI document do not change.
 */
import { HttpApiEndpoint } from "@effect/platform"
import { Pagination } from "@switchboard/domain"
import type { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { IdPath } from "./Path.js"

type Path = HttpApiEndpoint.PathSegment
type Any = Schema.Schema.Any
type Errors = ReadonlyArray<Any>
/** A path's parameters (`IdPath` unless told), checked at the call as `setPath` checks them: text. */
type PathParams<S extends Any> = S & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<S>
const idPath = <S extends Any>() => IdPath as unknown as PathParams<S>

// The helpers are generic in their schemas, where the compiler cannot prove what a group's
// own chain proves (that a list's parameters and a payload encode as they must): these pass
// them on as they are.
const asPayload = <M extends "POST" | "PATCH", S extends Any>(_: M, schema: S) => schema as S & HttpApiEndpoint.HttpApiEndpoint.ValidatePayload<M, S>
const listParams = <P, F extends Schema.Struct.Fields>(position: Schema.Schema<P, string>, filters: F) => {
  const params = Pagination.ListParams(position, filters)
  return params as typeof params & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<typeof params>
}

/** `GET path` listing the tenant's resources, a page at a time (`Pagination.ListParams(position, filters)`), in pages named `page`. */
export const list = <const Name extends string, P, F extends Schema.Struct.Fields, A, I, R>(
  name: Name,
  path: Path,
  position: Schema.Schema<P, string>,
  filters: F,
  item: Schema.Schema<A, I, R>,
  page: string
) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams<ReturnType<typeof Pagination.ListParams<P, F>>>(listParams(position, filters))
    .addSuccess(Pagination.PageOf(item, page))

/** `GET path` listing what the resource its path names holds, as `list` does, 404 when there is none. */
export const listOf = <const Name extends string, P, F extends Schema.Struct.Fields, A, I, R, PS extends Any = typeof IdPath>(
  name: Name,
  path: Path,
  position: Schema.Schema<P, string>,
  filters: F,
  item: Schema.Schema<A, I, R>,
  page: string,
  pathParams: PathParams<PS> = idPath<PS>()
) =>
  HttpApiEndpoint.get(name, path)
    .setPath<PS>(pathParams)
    .setUrlParams<ReturnType<typeof Pagination.ListParams<P, F>>>(listParams(position, filters))
    .addSuccess(Pagination.PageOf(item, page))
    .addError(ApiError.ResourceNotFound)

/** `GET path` reading the one resource its path names, 404 when there is none. */
export const getOne = <const Name extends string, S extends Any, PS extends Any = typeof IdPath>(
  name: Name,
  path: Path,
  resource: S,
  pathParams: PathParams<PS> = idPath<PS>()
) => HttpApiEndpoint.get(name, path).setPath<PS>(pathParams).addSuccess(resource).addError(ApiError.ResourceNotFound)

const withPayload =
  <const Method extends "POST" | "PATCH">(method: Method, status: number | undefined) =>
  <const Name extends string, B extends Any, S extends Any, const Es extends Errors, PS extends Any = typeof IdPath>(
    name: Name,
    path: Path,
    payload: B,
    resource: S,
    errors: Es,
    pathParams: PathParams<PS> = idPath<PS>()
  ) =>
    HttpApiEndpoint.make(method)(name, path)
      .setPath<PS>(pathParams)
      .setPayload<B>(asPayload(method, payload))
      .addSuccess(resource, status === undefined ? undefined : { status })
      .pipe(ApiError.withErrors(...errors))

/** `POST path` making a resource under the one its path names: the payload, 201 and the resource, and `errors`. */
export const createIn = withPayload("POST", 201)

/** `PATCH path` changing the resource its path names: the payload, the resource, and `errors`. */
export const update = withPayload("PATCH", undefined)

const posting =
  (status: number) =>
  <const Name extends string, B extends Any, S extends Any, const Es extends Errors>(name: Name, path: Path, payload: B, answer: S, errors: Es) =>
    HttpApiEndpoint.post(name, path)
      .setPayload<B>(asPayload("POST", payload))
      .addSuccess(answer, { status })
      .pipe(ApiError.withErrors(...errors))

/** `POST path` making one of the tenant's resources: the payload, 201 and the resource, and `errors`. */
export const create = posting(201)

/** `POST path` taking work to do after the answer (a request to a customer, a sandbox event): the payload, 202 and what was accepted, and `errors`. */
export const accepted = posting(202)

/** `DELETE path` removing the resource its path names: what was deleted, and `errors`. */
export const remove = <const Name extends string, S extends Any, const Es extends Errors, PS extends Any = typeof IdPath>(
  name: Name,
  path: Path,
  answer: S,
  errors: Es,
  pathParams: PathParams<PS> = idPath<PS>()
) =>
  HttpApiEndpoint.del(name, path)
    .setPath<PS>(pathParams)
    .addSuccess(answer)
    .pipe(ApiError.withErrors(...errors))
