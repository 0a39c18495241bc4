/**
 * Media edges (issue 32): the resumable upload API (`POST /app/uploads` or `/{app_id}/uploads`
 * opens a session; `POST /{upload:…}` with the header `file_offset` takes the bytes and,
 * once complete, answers the handle `{h}`; `GET /{upload:…}` answers the offset to resume
 * from), a phone number's media (`POST /{phone}/media`, multipart: `messaging_product`,
 * `type`, `file`; `GET /{media_id}` its URL and facts) and the control edge that expires a
 * media (`POST /_emulator/media/expire`, as the operator does after 30 days).
 */
import { GraphErrors } from "../GraphError.js"
import { mediaUploadError } from "../MediaStore.js"
import { ControlError, requiredString } from "../Requests.js"
import { type ControlEdge, type GraphEdge, ok } from "../Router.js"
import * as AccountRoutes from "./AccountRoutes.js"
import * as FlowRoutes from "./FlowRoutes.js"

/** The edge of another table for the same method and path pattern (an id that is not ours goes there). */
const otherwise = (table: ReadonlyArray<GraphEdge>, method: string, path: string): GraphEdge => {
  const edge = table.find((e) => e.method === method && e.path === path)
  if (edge === undefined) throw new Error(`no ${method} ${path} edge to fall back on`)
  return edge
}

interface Part {
  readonly name: string
  readonly contentType: string | undefined
  readonly data: Buffer
}

/** The parts of a multipart/form-data body. */
const partsOf = (contentType: string | undefined, raw: Buffer): Array<Part> => {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "")
  if (boundary === null) throw GraphErrors.invalidParameter("The media upload must be multipart/form-data.")
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`)
  const parts: Array<Part> = []
  let at = raw.indexOf(delimiter)
  while (at !== -1) {
    const start = at + delimiter.length
    if (raw.subarray(start, start + 2).toString() === "--") break
    const headEnd = raw.indexOf("\r\n\r\n", start)
    const next = raw.indexOf(delimiter, headEnd)
    if (headEnd === -1 || next === -1) throw GraphErrors.invalidParameter("The multipart body is malformed.")
    const head = raw.subarray(start, headEnd).toString("utf8")
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? ""
    const type = /content-type:\s*([^\r\n;]+)/i.exec(head)?.[1]?.trim()
    parts.push({ name, contentType: type, data: raw.subarray(headEnd + 4, next - 2) })
    at = next
  }
  return parts
}

const accountGet = otherwise(AccountRoutes.graphEdges, "GET", "/:id")
const flowPost = otherwise(FlowRoutes.graphEdges, "POST", "/:id")

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:appId/uploads",
    handle: (ctx, { query }) => ok({ id: ctx.media.startSession(query.get("file_name"), query.get("file_length"), query.get("file_type")) })
  },
  {
    method: "POST",
    path: "/:phoneNumberId/media",
    handle: (ctx, request) => {
      const phoneNumberId = request.params.phoneNumberId
      if (ctx.accounts.phoneNumber(phoneNumberId) === undefined) throw GraphErrors.unknownObject(phoneNumberId)
      const parts = partsOf(request.headers["content-type"], request.raw)
      const field = (name: string) => parts.find((p) => p.name === name)
      if (field("messaging_product")?.data.toString() !== "whatsapp")
        throw GraphErrors.invalidParameter("The parameter messaging_product is required (whatsapp).")
      const file = field("file")
      if (file === undefined) throw GraphErrors.invalidParameter("The parameter file is required.")
      const type = field("type")?.data.toString().trim() ?? file.contentType
      if (type === undefined || type === "") throw mediaUploadError("The parameter type is required.")
      return ok({ id: ctx.media.upload(phoneNumberId, type, file.data) })
    }
  },
  {
    method: "POST",
    path: "/:id",
    handle: (ctx, request) => {
      const id = request.params.id
      if (!id.startsWith("upload:")) return flowPost.handle(ctx, request)
      const offset = request.headers.file_offset
      return ok(ctx.media.receive(id, Array.isArray(offset) ? offset[0] : offset, request.raw))
    }
  },
  {
    method: "GET",
    path: "/:id",
    handle: (ctx, request) => {
      const id = request.params.id
      if (id.startsWith("upload:")) {
        const offset = ctx.media.offsetOf(id)
        if (offset === undefined) throw GraphErrors.unknownObjectGet(id, "GET")
        return ok({ id, file_offset: offset })
      }
      const media = ctx.media.find(id)
      if (media === undefined) return accountGet.handle(ctx, request)
      return ok({
        messaging_product: "whatsapp",
        url: `${ctx.url}/_emulator/media/${id}`,
        mime_type: media.type,
        sha256: media.sha256,
        file_size: media.size,
        id
      })
    }
  }
]

export const controlEdges: ReadonlyArray<ControlEdge> = [
  {
    method: "POST",
    path: "/media/expire",
    handle: (ctx, request) => {
      const id = requiredString(request.body(), "media_id")
      if (!ctx.media.expire(id)) throw new ControlError(404, `no media ${id}`)
      return ok({ media_id: id, expired: true })
    }
  },
  { method: "GET", path: "/media/uploads", handle: (ctx) => ok({ data: ctx.media.uploads }) }
]
