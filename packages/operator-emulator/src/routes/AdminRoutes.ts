/**
 * The emulator's own control edges: health, configuration (rate limits, faults, latency,
 * webhook URL), reset of the record of sends, and what catalogs' `items_batch` calls came
 * to (`GET /items-batches[?catalog_id=]`: accepted calls, 80014 refusals, chunks seen twice,
 * requests).
 */
import { ControlError } from "../Requests.js"
import { type ControlEdge, ok } from "../Router.js"

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "GET", path: "/health", handle: () => ok({ ok: true }) },
  { method: "GET", path: "/config", handle: (ctx) => ok({ config: ctx.config, webhookUrl: ctx.webhooks.url ?? null }) },
  {
    method: "POST",
    path: "/config",
    handle: (ctx, request) => {
      const { webhookUrl, ...patch } = request.body()
      if (webhookUrl !== undefined) {
        if (typeof webhookUrl !== "string") throw new ControlError(400, "webhookUrl must be a string")
        ctx.setWebhookUrl(webhookUrl)
      }
      ctx.configure(patch)
      return ok({ ok: true, config: ctx.config })
    }
  },
  {
    method: "GET",
    path: "/items-batches",
    handle: (ctx, request) => ok(ctx.items.statsFor(request.query.get("catalog_id") ?? undefined))
  },
  {
    method: "POST",
    path: "/reset",
    handle: (ctx) => {
      ctx.messaging.reset()
      ctx.limiter.clear()
      ctx.limits.clear()
      ctx.batcher.clear()
      ctx.accounts.health.clear()
      return ok({ ok: true })
    }
  }
]
