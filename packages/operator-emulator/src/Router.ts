/**
 * Routing by a table of edges: each edge is a method (or `*` for any), a path pattern and a
 * handler. A pattern's segments are literals or `:name` parameters; the first edge of the
 * table that matches answers, so an edge for one method goes before a `*` edge of the same
 * path. Graph edges match the path after its version segment (`/v23.0`); control edges the
 * path after `/_emulator`.
 */
import type { Accounts } from "./Accounts.js"
import type { EmulatorConfig } from "./Config.js"
import type { CustomerWindows } from "./Customers.js"
import type { CatalogStore } from "./Catalogs.js"
import type { FlowStore } from "./Flows.js"
import type { ItemsBatches } from "./ItemsBatch.js"
import type * as http from "node:http"
import type { MediaStore } from "./MediaStore.js"
import type { Messaging } from "./Messaging.js"
import type { MessagingLimits } from "./MessagingLimits.js"
import type { RateLimiter } from "./RateLimits.js"
import type { TemplateStore } from "./Templates.js"
import type { StatusBatcher, WebhookClient } from "./Webhooks.js"

/** The emulator's state, as handlers see it. */
export interface EmulatorContext {
  /** Base URL of the running emulator (for links such as the next page of a list). */
  readonly url: string
  /** The current configuration (a patch replaces it). */
  readonly config: EmulatorConfig
  configure(patch: Partial<EmulatorConfig> | Record<string, unknown>): void
  setWebhookUrl(url: string): void
  readonly now: () => number
  readonly accounts: Accounts
  readonly windows: CustomerWindows
  readonly limiter: RateLimiter
  readonly limits: MessagingLimits
  readonly templates: TemplateStore
  readonly flows: FlowStore
  readonly catalogs: CatalogStore
  readonly items: ItemsBatches
  readonly messaging: Messaging
  /** Upload sessions, handles and phone numbers' media (issue 32). */
  readonly media: MediaStore
  readonly webhooks: WebhookClient
  readonly batcher: StatusBatcher
  /** The app secret: what webhooks and flow endpoint requests are signed with. */
  readonly appSecret: string
  /** Schedules a write of the state file (when there is one). */
  persist(): void
}

/** A handler's answer: the status (200 unless said) and the JSON body. */
export interface Answer {
  readonly status?: number
  readonly body: unknown
}

/** A Graph API request, its body parsed on demand (a parse error is the handler's refusal). */
export interface GraphRequest {
  readonly method: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The version segment of the path, `v23.0` when it had none. */
  readonly version: string
  readonly body: () => unknown
  /** The body's bytes (uploads) and the request's headers. */
  readonly raw: Buffer
  readonly headers: http.IncomingHttpHeaders
}

/** A control API request (`/_emulator/...`), its JSON object body parsed on demand. */
export interface ControlRequest {
  readonly method: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly body: () => Record<string, unknown>
}

export interface Edge<Request> {
  readonly method: "GET" | "POST" | "DELETE" | "*"
  readonly path: string
  readonly handle: (ctx: EmulatorContext, request: Request) => Answer | Promise<Answer>
}

export type GraphEdge = Edge<GraphRequest>
export type ControlEdge = Edge<ControlRequest>

interface Compiled<Request> {
  readonly edge: Edge<Request>
  readonly segments: ReadonlyArray<string>
}

/** A table compiled for matching. */
export interface Router<Request> {
  /** The first edge matching `method` and the path's segments, with the parameters it binds. */
  find(method: string, segments: ReadonlyArray<string>): { readonly edge: Edge<Request>; readonly params: Record<string, string> } | undefined
}

export const router = <Request>(table: ReadonlyArray<Edge<Request>>): Router<Request> => {
  const compiled: ReadonlyArray<Compiled<Request>> = table.map((edge) => ({ edge, segments: edge.path.split("/").slice(1) }))
  return {
    find(method, segments) {
      for (const { edge, segments: pattern } of compiled) {
        if ((edge.method !== "*" && edge.method !== method) || pattern.length !== segments.length) continue
        const params: Record<string, string> = {}
        let matches = true
        for (let i = 0; i < pattern.length && matches; i++) {
          if (pattern[i].startsWith(":")) params[pattern[i].slice(1)] = segments[i]
          else matches = pattern[i] === segments[i]
        }
        if (matches) return { edge, params }
      }
      return undefined
    }
  }
}

/** 200 with `body`. */
export const ok = (body: unknown): Answer => ({ body })
