/** What the outbound tests share: a local HTTP server on 127.0.0.1, closed with the scope. */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** Hands each request, with its whole body, to `onRequest`; counts connections (requests whose headers arrived, answered or not). */
export const localServer = (onRequest: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) =>
  Effect.acquireRelease(
    Effect.async<{ server: http.Server; port: number; connections: () => number }>((resume) => {
      let connections = 0
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => onRequest(req, res, Buffer.concat(chunks).toString("utf8")))
      })
      server.on("connection", () => {
        connections++
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, port: (server.address() as AddressInfo).port, connections: () => connections }))
      )
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
