import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server, type Socket } from "node:net"
import { FeedFiles } from "../src/index.js"

/** A loopback server that accepts connections and never answers (or, with `trickle`, answers and then stops sending). */
const silent = (trickle: boolean) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; server: Server; sockets: Set<Socket> }>((resume) => {
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        socket.on("error", () => {})
        if (trickle) socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/csv\r\ntransfer-encoding: chunked\r\n\r\n5\r\nid,na\r\n")
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address ? address.port : 0
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/feed.csv`, server, sockets }))
      })
    }),
    ({ server, sockets }) =>
      Effect.async<void>((resume) => {
        for (const s of sockets) s.destroy()
        server.close(() => resume(Effect.void))
      })
  )

describe("FeedFiles download deadlines", () => {
  it.scopedLive("a URL that accepts and never answers fails after the silence deadline, not the download's", () =>
    Effect.gen(function* () {
      const { url } = yield* silent(false)
      const reader = FeedFiles.make({ allowPrivateUrls: true, idleTimeoutMs: 300, downloadTimeoutMs: 600_000 })
      const started = Date.now()
      const error = yield* Effect.flip(reader.download(url, 1_000_000))
      expect(error.message).toBe("the URL did not answer within 300 ms")
      expect(Date.now() - started).toBeLessThan(5_000)
    })
  )

  it.scopedLive("a download that stops sending fails after the silence deadline", () =>
    Effect.gen(function* () {
      const { url } = yield* silent(true)
      const reader = FeedFiles.make({ allowPrivateUrls: true, idleTimeoutMs: 300 })
      const error = yield* Effect.flip(reader.download(url, 1_000_000))
      expect(error.message).toBe("the download stalled: no data for 300 ms")
    })
  )
})
