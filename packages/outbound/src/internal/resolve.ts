/** Host name resolution through the injectable resolver, and the `lookup` that guards every connection. */
import { promises as dns } from "node:dns"
import type { LookupFunction } from "node:net"
import { classifyAddress, describeAddress } from "./address.js"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Answers every address of a host name. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** `dns.lookup(hostname, { all: true })`: what the operating system would connect to. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true })
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : typeof error === "string" ? error : String(error))

/** Calls the resolver, turning a synchronous throw into a rejection. */
export const callResolver = (resolver: Resolver, hostname: string): Promise<ReadonlyArray<ResolvedAddress>> => {
  try {
    return Promise.resolve(resolver(hostname))
  } catch (error) {
    return Promise.reject(error)
  }
}

/** What is wrong with a host whose addresses these are (for logs), or `undefined` if every one is public. */
export const refusalOf = (addresses: ReadonlyArray<ResolvedAddress>): string | undefined => {
  if (addresses.length === 0) return "resolves to no address"
  for (const { address } of addresses) {
    const kind = classifyAddress(address)
    if (kind !== "public") return `resolves to ${describeAddress(address, kind)}`
  }
  return undefined
}

/** Raised by the guarding `lookup`; the request's `error` event carries it. `detail` is for logs only. */
export class AddressRefusedError extends Error {
  readonly code = "ERR_WEBHOOK_ADDRESS_REFUSED"
  constructor(readonly detail: string) {
    super(detail)
    this.name = "AddressRefusedError"
  }
}

/** The resolver failed inside the guarding `lookup`; `detail` (what it answered) is for logs only. */
export class ResolutionFailedError extends Error {
  readonly code = "ERR_WEBHOOK_RESOLUTION_FAILED"
  constructor(readonly detail: string) {
    super("the host name could not be resolved")
    this.name = "ResolutionFailedError"
  }
}

const notFound = (hostname: string): NodeJS.ErrnoException => {
  const error: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`)
  error.code = "ENOTFOUND"
  return error
}

/**
 * The `lookup` of every outgoing connection. It resolves the host name itself and, unless
 * private addresses are allowed, refuses the connection when any address is not public:
 * the check happens on the very addresses the socket connects to, which defeats DNS
 * rebinding between `checkUrl` and `deliver`.
 */
export const guardedLookup =
  (resolver: Resolver, allowPrivateUrls: boolean, onRefused: (reason: string) => void): LookupFunction =>
  (hostname, options, callback) => {
    callResolver(resolver, hostname).then(
      (all) => {
        if (!allowPrivateUrls) {
          const reason = refusalOf(all)
          if (reason !== undefined) {
            onRefused(reason)
            callback(new AddressRefusedError(reason), "")
            return
          }
        }
        const wanted = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : undefined
        const addresses = wanted === undefined ? all : all.filter((a) => a.family === wanted)
        if (addresses.length === 0) {
          callback(notFound(hostname), "")
          return
        }
        if (options.all === true) {
          callback(
            null,
            addresses.map((a) => ({ address: a.address, family: a.family }))
          )
        } else {
          callback(null, addresses[0].address, addresses[0].family)
        }
      },
      (error: unknown) => {
        callback(
          allowPrivateUrls ? (error instanceof Error ? error : new Error(errorMessage(error))) : new ResolutionFailedError(errorMessage(error)),
          ""
        )
      }
    )
  }
