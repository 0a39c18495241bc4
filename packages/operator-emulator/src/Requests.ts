/**
 * Reading requests: the raw body (with the size limit), Graph bodies (JSON, or form-encoded
 * with JSON-looking values decoded) and control bodies (a JSON object), and the fields of a
 * control body. Graph problems throw `GraphError`; control problems `ControlError`.
 */
import type * as http from "node:http"
import { GraphErrors } from "./GraphError.js"

/** The operator's largest payload (an `items_batch` call takes up to 28 MB, GRAPH_API.md §8.3). */
export const MAX_BODY_BYTES = 28 * 1024 * 1024

/** Raised for malformed control requests: answered `{error:{message}}` with the status. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

export const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(GraphErrors.invalidParameter(`The request body exceeds ${MAX_BODY_BYTES} bytes.`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** A file part of a multipart body (`file` of a Flow JSON upload): its name, type and text. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly text: string
  ) {}
}

/** A form value, JSON-looking ones decoded (as the Graph reads form parameters). */
const formValue = (value: string): unknown => {
  const trimmed = value.trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed)
    } catch {
      // keep the string
    }
  }
  return value
}

/** Parses a `multipart/form-data` body: fields as form values, file parts as `UploadedFile`. */
const parseMultipart = (raw: Buffer, type: string): Record<string, unknown> => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type)
  if (boundary === null) throw GraphErrors.invalidParameter("The multipart body has no boundary.")
  const delimiter = `--${boundary[1] ?? boundary[2]}`
  const body: Record<string, unknown> = {}
  for (const part of raw.toString("utf8").split(delimiter).slice(1)) {
    if (part.startsWith("--")) break
    const split = part.indexOf("\r\n\r\n")
    if (split === -1) continue
    const headers = part.slice(0, split)
    const value = part.slice(split + 4).replace(/\r\n$/, "")
    const name = /name="([^"]*)"/i.exec(headers)?.[1]
    if (name === undefined) continue
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1]
    const partType = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? "application/octet-stream"
    body[name] = filename === undefined ? formValue(value) : new UploadedFile(filename, partType, value)
  }
  return body
}

/** Parses a Graph request body: JSON, form-encoded or multipart (JSON-looking form values decoded). */
export const parseGraphBody = (req: http.IncomingMessage, raw: Buffer): unknown => {
  if (raw.length === 0) return {}
  const type = req.headers["content-type"] ?? ""
  if (type.toLowerCase().startsWith("multipart/form-data")) return parseMultipart(raw, type)
  const text = raw.toString("utf8")
  if (type.includes("application/x-www-form-urlencoded") && !text.trimStart().startsWith("{")) {
    const body: Record<string, unknown> = {}
    for (const [key, value] of new URLSearchParams(text)) body[key] = formValue(value)
    return body
  }
  try {
    return JSON.parse(text)
  } catch {
    throw GraphErrors.invalidParameter("The request body is not valid JSON.")
  }
}

export const parseControlBody = (raw: Buffer): Record<string, unknown> => {
  if (raw.length === 0) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw.toString("utf8"))
  } catch {
    throw new ControlError(400, "the request body is not valid JSON")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ControlError(400, "the request body must be a JSON object")
  }
  return parsed as Record<string, unknown>
}

export const requiredString = (body: Record<string, unknown>, key: string): string => {
  const value = body[key]
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  if (typeof value !== "string" || value.length === 0) throw new ControlError(400, `${key} is required (a string)`)
  return value
}

export const optionalString = (body: Record<string, unknown>, key: string): string | undefined => {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  if (typeof value !== "string") throw new ControlError(400, `${key} must be a string`)
  return value
}
