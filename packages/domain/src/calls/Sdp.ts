/**
 * Session descriptions (SDP, RFC 8866) as calls exchange them (GRAPH_API.md §6.3): parsed
 * line by line by the grammar (`<type>=<value>`, session section, then one section per
 * `m=` line, attributes `a=<name>[:<value>]`), never matched with patterns, and checked for
 * what the operator's WebRTC media needs:
 *
 * - an audio media section offering at least one of Opus, G722, PCMU, PCMA;
 * - ICE credentials (`a=ice-ufrag`, `a=ice-pwd`, at session or media level);
 * - a DTLS fingerprint (`a=fingerprint`), or SDES keys (`a=crypto`) when the store's
 *   settings choose SDES for the SRTP key exchange.
 */
import { Effect } from "effect"
import { ValidationFailed } from "../shared/Errors.js"

export const SUPPORTED_CODECS = ["opus", "g722", "pcmu", "pcma"] as const

export interface Codec {
  readonly payloadType: number
  readonly name: string
  readonly clockRate: number
  readonly channels: number | null
}

export interface Media {
  readonly kind: string
  readonly port: number
  readonly protocol: string
  readonly formats: ReadonlyArray<string>
  readonly codecs: ReadonlyArray<Codec>
  readonly direction: string
  readonly attributes: ReadonlyArray<readonly [name: string, value: string | null]>
}

export interface Parsed {
  readonly version: string | null
  readonly origin: string | null
  readonly attributes: ReadonlyArray<readonly [name: string, value: string | null]>
  readonly media: ReadonlyArray<Media>
}

/** One line's problem, as a field issue. */
export interface Problem {
  readonly line: number
  readonly message: string
}

const DIRECTIONS = new Set(["sendrecv", "sendonly", "recvonly", "inactive"])

const attributeOf = (value: string): readonly [string, string | null] => {
  const colon = value.indexOf(":")
  return colon === -1 ? [value, null] : [value.slice(0, colon), value.slice(colon + 1)]
}

const words = (s: string): Array<string> => s.split(" ").filter((w) => w.length > 0)

const isDigits = (s: string): boolean => s.length > 0 && [...s].every((ch) => ch >= "0" && ch <= "9")

/** `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`. */
const rtpmapOf = (value: string): Codec | undefined => {
  const [pt, encoding] = words(value)
  if (pt === undefined || encoding === undefined || !isDigits(pt)) return undefined
  const [name, clock, channels] = encoding.split("/")
  if (name === undefined || clock === undefined || !isDigits(clock)) return undefined
  return { payloadType: Number(pt), name, clockRate: Number(clock), channels: channels !== undefined && isDigits(channels) ? Number(channels) : null }
}

/** Parses the text; answers the description or the problems of its lines. */
export const parse = (text: string): { readonly parsed: Parsed; readonly problems: ReadonlyArray<Problem> } => {
  const problems: Array<Problem> = []
  const session: Array<readonly [string, string | null]> = []
  const media: Array<{ kind: string; port: number; protocol: string; formats: Array<string>; attributes: Array<readonly [string, string | null]> }> =
    []
  let version: string | null = null
  let origin: string | null = null
  const lines = text.split("\n")
  lines.forEach((raw, index) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    if (line.length === 0) return
    if (line.length < 2 || line[1] !== "=") {
      problems.push({ line: index + 1, message: `line ${index + 1} is not '<type>=<value>'` })
      return
    }
    const type = line[0]
    const value = line.slice(2)
    const current = media[media.length - 1]
    switch (type) {
      case "v":
        version = value
        break
      case "o":
        origin = value
        break
      case "m": {
        const [kind, port, protocol, ...formats] = words(value)
        if (kind === undefined || port === undefined || protocol === undefined || !isDigits(port.split("/")[0])) {
          problems.push({ line: index + 1, message: `line ${index + 1}: m= needs '<media> <port> <proto> <fmt> ...'` })
          return
        }
        media.push({ kind, port: Number(port.split("/")[0]), protocol, formats, attributes: [] })
        break
      }
      case "a":
        ;(current === undefined ? session : current.attributes).push(attributeOf(value))
        break
      default:
        break
    }
  })
  if (version === null) problems.push({ line: 1, message: "has no v= line" })
  const parsedMedia: Array<Media> = media.map((m) => {
    const codecs = m.attributes.flatMap(([name, value]) => {
      if (name !== "rtpmap" || value === null) return []
      const codec = rtpmapOf(value)
      return codec === undefined || !m.formats.includes(String(codec.payloadType)) ? [] : [codec]
    })
    // static payload types need no rtpmap (RFC 3551): 0 PCMU, 8 PCMA, 9 G722
    const statics: ReadonlyArray<Codec> = [
      { payloadType: 0, name: "PCMU", clockRate: 8000, channels: null },
      { payloadType: 8, name: "PCMA", clockRate: 8000, channels: null },
      { payloadType: 9, name: "G722", clockRate: 8000, channels: null }
    ]
    const all = [
      ...codecs,
      ...statics.filter((s) => m.formats.includes(String(s.payloadType)) && !codecs.some((c) => c.payloadType === s.payloadType))
    ]
    const direction =
      [...m.attributes].reverse().find(([name]) => DIRECTIONS.has(name))?.[0] ?? session.find(([name]) => DIRECTIONS.has(name))?.[0] ?? "sendrecv"
    return { ...m, codecs: all, direction }
  })
  return { parsed: { version, origin, attributes: session, media: parsedMedia }, problems }
}

/** The first value of attribute `name` in the media section, else at session level. */
const attribute = (parsed: Parsed, media: Media | undefined, name: string): string | null | undefined => {
  const inMedia = media?.attributes.find(([n]) => n === name)
  if (inMedia !== undefined) return inMedia[1]
  return parsed.attributes.find(([n]) => n === name)?.[1]
}

export type KeyExchange = "DTLS" | "SDES"

/** The audio section that can carry the call: the first audio section with a supported codec. */
export const audioOf = (parsed: Parsed): Media | undefined =>
  parsed.media.find((m) => m.kind === "audio" && m.codecs.some((c) => (SUPPORTED_CODECS as ReadonlyArray<string>).includes(c.name.toLowerCase())))

/** What the description lacks for a call, each as a sentence naming it (empty: usable). */
export const missing = (parsed: Parsed, keyExchange: KeyExchange = "DTLS"): ReadonlyArray<string> => {
  const out: Array<string> = []
  const anyAudio = parsed.media.find((m) => m.kind === "audio")
  const audio = audioOf(parsed)
  if (anyAudio === undefined) out.push("has no audio media section (m=audio)")
  else if (audio === undefined) out.push("offers none of the codecs Opus, G722, PCMU, PCMA in its audio section (a=rtpmap)")
  const section = audio ?? anyAudio
  if (!attribute(parsed, section, "ice-ufrag")) out.push("has no ICE username fragment (a=ice-ufrag)")
  if (!attribute(parsed, section, "ice-pwd")) out.push("has no ICE password (a=ice-pwd)")
  if (keyExchange === "DTLS") {
    const fingerprint = attribute(parsed, section, "fingerprint")
    if (!fingerprint || words(fingerprint).length < 2) out.push("has no DTLS fingerprint (a=fingerprint)")
  } else if (!attribute(parsed, section, "crypto")) {
    out.push("has no SDES key (a=crypto)")
  }
  return out
}

/** Checks `text` for a call; 400 naming `path` and everything it lacks. */
export const check = (text: string, path: string, keyExchange: KeyExchange = "DTLS") => {
  const { parsed, problems } = parse(text)
  const issues = [...problems.map((p) => p.message), ...(problems.length > 0 && parsed.media.length === 0 ? [] : missing(parsed, keyExchange))]
  return issues.length === 0 ? Effect.succeed(parsed) : Effect.fail(ValidationFailed.all(issues.map((message) => ({ path, message }))))
}

/** What `GET /chat/calls/{id}/media` shows of one description. */
export const summaryOf = (text: string | null) => {
  if (text === null) return null
  const { parsed } = parse(text)
  const audio = audioOf(parsed) ?? parsed.media.find((m) => m.kind === "audio")
  const fingerprint = attribute(parsed, audio, "fingerprint")
  const candidates = parsed.media.flatMap((m) => m.attributes.filter(([n]) => n === "candidate").map(([, v]) => v ?? ""))
  return {
    codecs: (audio?.codecs ?? []).map((c) => ({ payload_type: c.payloadType, name: c.name, clock_rate: c.clockRate, channels: c.channels })),
    direction: audio?.direction ?? null,
    fingerprint_algorithm: fingerprint ? (words(fingerprint)[0] ?? null) : null,
    key_exchange: fingerprint ? ("DTLS" as const) : attribute(parsed, audio, "crypto") ? ("SDES" as const) : null,
    ice_ufrag: attribute(parsed, audio, "ice-ufrag") ?? null,
    candidates,
    sdp: text
  }
}

/** A browser-style audio offer (Chrome's shape: Opus, G722, PCMU, PCMA; ICE; DTLS). */
export const EXAMPLE_OFFER = [
  "v=0",
  "o=- 4611731400430051336 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "a=group:BUNDLE 0",
  "a=msid-semantic: WMS",
  "m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8",
  "c=IN IP4 0.0.0.0",
  "a=rtcp:9 IN IP4 0.0.0.0",
  "a=candidate:1 1 udp 2122260223 192.0.2.10 54400 typ host generation 0",
  "a=ice-ufrag:8hhY",
  "a=ice-pwd:asd88fgpdd777uzjYhagZg",
  "a=ice-options:trickle",
  "a=fingerprint:sha-256 D1:2C:BE:AD:C4:F6:64:5C:25:16:11:9C:AF:E7:0F:73:79:36:4E:9C:1E:15:54:39:0C:06:8B:ED:96:86:00:39",
  "a=setup:actpass",
  "a=mid:0",
  "a=sendrecv",
  "a=rtcp-mux",
  "a=rtpmap:111 opus/48000/2",
  "a=fmtp:111 minptime=10;useinbandfec=1",
  "a=rtpmap:9 G722/8000",
  "a=rtpmap:0 PCMU/8000",
  "a=rtpmap:8 PCMA/8000",
  ""
].join("\r\n")

/** An answer to `EXAMPLE_OFFER` (what our side, or the emulator's customer, would answer). */
export const EXAMPLE_ANSWER = EXAMPLE_OFFER.replace("a=setup:actpass", "a=setup:active")
  .replace("a=ice-ufrag:8hhY", "a=ice-ufrag:Zq9x")
  .replace("o=- 4611731400430051336", "o=- 7361902283155049017")
