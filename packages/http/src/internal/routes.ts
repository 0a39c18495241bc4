/**
 * What the intake needs to know of a route before the router runs: whether it is
 * authenticated, its body limit, and the content types its payload declares. Read once from
 * the `HttpApi` definition (`HttpApi.reflect`), so it cannot drift from the routes.
 */
import { HttpApi } from "@effect/platform"
import { type SchemaAST as AST, Context, Option } from "effect"
import { BodyLimit, MultipartLimit } from "../BodyLimit.js"

export interface RouteRule {
  readonly method: string
  readonly path: string
  readonly authenticated: boolean
  /** The limit of a JSON (or any non-multipart) body. */
  readonly limitBytes: number
  /** The limit of a `multipart/form-data` body (only on `streamed` routes larger than `limitBytes`). */
  readonly multipartLimitBytes: number
  /**
   * The media types (lower case, no parameters) the payload declares; undefined when the
   * route declares no payload (its body, if any, is read raw, e.g. a signed webhook).
   */
  readonly accepts: ReadonlyArray<string> | undefined
  /** `multipart/form-data` routes read their body as a stream with their own limits. */
  readonly streamed: boolean
  /** The JSON payload declares a top-level `idempotency_key`: the intake takes it as the `Idempotency-Key`. */
  readonly bodyKey: boolean
  /** Whether the route declares URL parameters (one that declares none refuses any: `strict.ts`). */
  readonly declaresUrlParams: boolean
}

/** Whether the encoded side of `ast` (an object, or a union of objects) declares the top-level field `name`. */
const declaresField = (ast: AST.AST | undefined, name: string): boolean => {
  if (ast === undefined) return false
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.some((p) => p.name === name)
    case "Union":
      return ast.types.some((t) => declaresField(t, name))
    case "Transformation":
      return declaresField(ast.from, name)
    case "Refinement":
      return declaresField(ast.from, name)
    default:
      return false
  }
}

interface Compiled {
  readonly rule: RouteRule
  /** Literal segments, or undefined for a `:param`. */
  readonly segments: ReadonlyArray<string | undefined>
  readonly params: number
}

export interface RouteTable {
  readonly match: (method: string, url: string) => RouteRule | undefined
}

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The path of a request URL, as the router sees it (query, `;` and `#` cut off). */
const pathOf = (url: string): string => {
  const at = url.search(/[?;#]/)
  return at === -1 ? url : url.slice(0, at)
}

const literalFirst = (a: Compiled, b: Compiled): number => {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const x = a.segments[i] === undefined
    const y = b.segments[i] === undefined
    if (x !== y) return x ? 1 : -1
  }
  return a.params - b.params
}

export const make = (
  api: HttpApi.HttpApi.Any,
  /** The middleware tag that marks a route as authenticated. */
  authentication: unknown
): RouteTable => {
  const byMethod = new Map<string, Array<Compiled>>()
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations, middleware, payloads }) => {
      const accepts = payloads.size === 0 ? undefined : [...payloads.keys()].map((t) => t.toLowerCase())
      const limitBytes = Option.getOrElse(Context.getOption(mergedAnnotations, BodyLimit), () => BodyLimit.DEFAULT)
      const rule: RouteRule = {
        method: endpoint.method,
        path: endpoint.path,
        authenticated: middleware.has(authentication as never),
        limitBytes,
        multipartLimitBytes: Option.getOrElse(Context.getOption(mergedAnnotations, MultipartLimit), () => limitBytes),
        accepts,
        streamed: accepts?.includes("multipart/form-data") === true,
        bodyKey: declaresField(payloads.get("application/json")?.ast, "idempotency_key"),
        declaresUrlParams: Option.isSome(endpoint.urlParamsSchema)
      }
      const segments = endpoint.path.split("/").map((s) => (s.startsWith(":") ? undefined : s))
      const list = byMethod.get(endpoint.method) ?? []
      list.push({ rule, segments, params: segments.filter((s) => s === undefined).length })
      byMethod.set(endpoint.method, list)
    }
  })
  // a literal segment wins over a parameter at the first place two routes differ, as in the
  // router: `/calls/permissions/:phone` before `/calls/:id/media` for `/calls/permissions/media`
  for (const list of byMethod.values()) list.sort(literalFirst)
  return {
    match: (method, url) => {
      const list = byMethod.get(method === "HEAD" ? "GET" : method)
      if (list === undefined) return undefined
      const parts = pathOf(url).split("/")
      for (const { rule, segments } of list) {
        if (segments.length !== parts.length) continue
        let ok = true
        for (let i = 0; i < segments.length && ok; i++) {
          const literal = segments[i]
          ok = literal === undefined ? parts[i].length > 0 : literal === parts[i] || literal === safeDecode(parts[i])
        }
        if (ok) return rule
      }
      return undefined
    }
  }
}
