/**
 * Stopping on SIGTERM (README, "Logs"). `NodeRuntime.runMain` interrupts the command, which
 * closes the layers in the reverse of their start:
 * 1. "draining" is logged (`logDraining`, registered once everything has started);
 * 2. the HTTP server stops accepting connections and finishes the requests in flight
 *    (`drainServer`), and the job runner stops claiming and lets its jobs in flight finish
 *    (`JobRunner.DrainGrace`), each within SWITCHBOARD_SHUTDOWN_GRACE; campaign lanes wait for
 *    their sends in flight and write their outcomes (`CampaignLane`); what is left then is
 *    interrupted, as after a crash (leases expire, rows left `sending` are reconciled);
 * 3. the database and the emulator close, and `main.ts` logs "stopped".
 */
import { Effect, Layer } from "effect"
import type { Server } from "node:http"
import * as AppConfig from "./Config.js"

/** Logs "draining" when the scope it runs in closes (the first thing a SIGTERM does). */
export const logDraining = Effect.flatMap(AppConfig.shutdownGraceMs, (graceMs) =>
  Effect.addFinalizer(() => Effect.logInfo("draining").pipe(Effect.annotateLogs({ grace_ms: graceMs })))
)

/** `logDraining` as a layer (the worker-only process has no banner to hang it on). */
export const layerDraining = Layer.scopedDiscard(logDraining)

/** How often idle keep-alive connections are closed while the server drains. */
const IDLE_CLOSE_MS = 50

/**
 * When its scope closes: `server` stops accepting, each keep-alive connection is closed once
 * its request is answered, and the scope waits until none is left, or `graceMs` and then
 * closes the rest.
 */
export const drainServer = (server: Server, graceMs: number) =>
  Layer.scopedDiscard(
    Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        if (!server.listening) return resume(Effect.void)
        let done = false
        const finish = () => {
          if (done) return
          done = true
          clearInterval(idle)
          clearTimeout(timer)
          resume(Effect.void)
        }
        const idle = setInterval(() => server.closeIdleConnections(), IDLE_CLOSE_MS)
        const timer = setTimeout(() => {
          server.closeAllConnections()
          finish()
        }, graceMs)
        server.close(() => finish())
        server.closeIdleConnections()
      })
    )
  )
