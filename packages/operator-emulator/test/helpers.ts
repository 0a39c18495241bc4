/**
 * What the emulator's test files share: requests to a running emulator (Graph and control
 * routes, the Flow JSON upload), a webhook receiver that records what it is sent, and a
 * wait for a condition. The emulator is started in each file's `beforeAll`, so the requests
 * read it through a getter.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Emulator } from "../src/index.js"

export interface Answer {
  readonly status: number
  readonly json: any
}

/** Requests to the emulator `emulator()` answers at, with the sandbox token. */
export const requests = (emulator: () => Emulator) => {
  /** A JSON body (a `Uint8Array` goes as it is); `headers` add to or replace the defaults. */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${emulator().url}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: "Bearer sandbox", ...headers },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) })
    })
    const text = await res.text()
    return { status: res.status, json: text.length > 0 ? JSON.parse(text) : undefined }
  }
  const graph = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(method, `/v23.0${path}`, body, headers)
  const control = (method: string, path: string, body?: unknown) => call(method, `/_emulator${path}`, body)
  /** The documented Flow JSON upload: multipart/form-data with `file`, `name`, `asset_type`. */
  const upload = async (flowId: string, json: string, fields: Record<string, string> = { name: "flow.json", asset_type: "FLOW_JSON" }) => {
    const form = new FormData()
    for (const [key, value] of Object.entries(fields)) form.append(key, value)
    form.append("file", new Blob([json], { type: "application/json" }), "flow.json")
    const res = await fetch(`${emulator().url}/v23.0/${flowId}/assets`, { method: "POST", headers: { authorization: "Bearer sandbox" }, body: form })
    return { status: res.status, json: (await res.json()) as any }
  }
  return { call, graph, control, upload }
}

/** A webhook endpoint on a free port: answers 200 and keeps every JSON body it is sent in `received`. */
export interface Receiver {
  readonly url: string
  readonly received: Array<any>
  readonly close: () => Promise<void>
}

export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<any> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      if (text.length > 0) received.push(JSON.parse(text))
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  }
}

/** Polls `probe` every 10 ms until it answers something, for `timeoutMs` at most. */
export const waitFor = async <A>(probe: () => A | undefined, timeoutMs = 5000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 10))
  }
}
