/**
 * Offers each request to the API's fast lane (`@switchboard/http` `FastLane`) before the
 * platform's handler sees it: a hot route's success is written here, straight to Node's
 * response; every other request, and every one the lane declines, is handed to the
 * platform's `request` listener unchanged.
 */
import type { FastLane } from "@switchboard/http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"

const hasBody = (req: IncomingMessage): boolean => {
  const length = req.headers["content-length"]
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined
}

/** Routes `server`'s requests through `lane` first. */
export const install = (server: Server, lane: FastLane.FastLane["Type"]): void => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event !== "request") return emit(event, ...args)
    const req = args[0] as IncomingMessage
    const res = args[1] as ServerResponse
    const request = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, hasBody: hasBody(req) }
    const taken = lane.serve(request, (answer) => {
      if (answer === undefined) {
        emit("request", req, res)
        return
      }
      res.writeHead(answer.status, { "content-type": answer.contentType, "content-length": answer.body.length })
      res.end(answer.body)
    })
    return taken || emit("request", req, res)
  }) as Server["emit"]
}
