/**
 * What the intake needs to know of a route before the router runs: whether it is
 * authenticated, its body limit, and the content types its payload declares. Read once from
 * the `HttpApi` definition (`HttpApi.reflect`), so it cannot drift from the routes.
 */
import { HttpApi } from "@effect/platform"
import { Context, Option } from "effect"
import { BodyLimit } from "../BodyLimit.js"

export interface RouteRule {
  readonly method: string
  readonly path: string
  readonly authenticated: boolean
  readonly limitBytes: number
  /**
   * The media types (lower case, no parameters) the payload declares; undefined when the
   * route declares no payload (its body, if any, is read raw, e.g. a signed webhook).
   */
  readonly accepts: ReadonlyArray<string> | undefined
  /** `multipart/form-data` routes read their body as a stream with their own limits. */
  readonly streamed: boolean
  /** Whether the route declares URL parameters (one that declares none refuses any: `strict.ts`). */
  readonly declaresUrlParams: boolean
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
      const rule: RouteRule = {
        method: endpoint.method,
        path: endpoint.path,
        authenticated: middleware.has(authentication as never),
        limitBytes: Option.getOrElse(Context.getOption(mergedAnnotations, BodyLimit), () => BodyLimit.DEFAULT),
        accepts,
        streamed: accepts?.includes("multipart/form-data") === true,
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
