/**
 * The format checks of a webhook URL, shared by `checkUrl` and `deliver`: WHATWG parsing
 * (which normalises `http://127.1/`, `http://0x7f000001/`... to dotted decimal), scheme
 * http(s), no credentials, and (unless private URLs are allowed) no private IP literal and
 * no metadata host name.
 */
import { WebhookTransport } from "@switchboard/domain"
import { Either } from "effect"
import { isIP } from "node:net"
import { classifyAddress, describeAddress, isForbiddenHostname } from "./address.js"

export interface Target {
  readonly url: URL
  readonly protocol: "http:" | "https:"
  /** The host without the brackets of an IPv6 literal. */
  readonly hostname: string
  readonly port: number
  /** Path and query string. */
  readonly path: string
  /** The host is an IP address, so no name resolution (and no `lookup`) happens. */
  readonly ipLiteral: boolean
}

/**
 * What a caller is told about a refused address, whatever was found: never the resolved
 * address, the resolver's error, or whether the name exists.
 */
export const ADDRESS_NOT_ALLOWED = "address is not allowed (URLs we call must resolve to public addresses only)"

/** A refusal of the URL's form (scheme, credentials, syntax): the reason quotes only the caller's input. */
export const refused = (url: string, reason: string): WebhookTransport.UrlRefused => new WebhookTransport.UrlRefused({ url, reason })

/** A refusal of the address: the caller sees `ADDRESS_NOT_ALLOWED`, the logs see `detail`. */
export const addressRefused = (url: string, detail: string): WebhookTransport.UrlRefused =>
  new WebhookTransport.UrlRefused({ url, reason: ADDRESS_NOT_ALLOWED, detail })

export const parseTarget = (raw: string, allowPrivateUrls: boolean): Either.Either<Target, WebhookTransport.UrlRefused> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Either.left(refused(raw, "is not a valid absolute URL"))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left(refused(raw, `scheme ${url.protocol.replace(/:$/, "")} is not allowed; use http or https`))
  }
  if (url.username !== "" || url.password !== "") {
    return Either.left(refused(raw, "must not contain credentials"))
  }
  const hostname = url.hostname.startsWith("[") && url.hostname.endsWith("]") ? url.hostname.slice(1, -1) : url.hostname
  if (hostname === "") return Either.left(refused(raw, "has no host"))
  const ipLiteral = isIP(hostname) !== 0
  if (!allowPrivateUrls) {
    if (ipLiteral) {
      const kind = classifyAddress(hostname)
      if (kind !== "public") return Either.left(addressRefused(raw, `host is ${describeAddress(hostname, kind)}`))
    } else if (isForbiddenHostname(hostname)) {
      return Either.left(addressRefused(raw, `host ${hostname} is a metadata or local host name`))
    }
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
  return Either.right({
    url,
    protocol: url.protocol,
    hostname,
    port,
    path: `${url.pathname}${url.search}`,
    ipLiteral
  })
}
