/**
 * Graph API errors in the operator's wire format (GRAPH_API.md §1.1):
 * `{error:{message, type:"OAuthException", code, error_subcode?, error_user_title?, error_user_msg?,
 * is_transient?, error_data:{messaging_product:"whatsapp", details}, fbtrace_id}}`.
 */

const DOCS = "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"

/** Optional parts of a Graph error. */
export interface GraphErrorExtra {
  readonly subcode?: number
  readonly userTitle?: string
  readonly userMsg?: string
  readonly details?: string
  readonly isTransient?: boolean
}

/** A Graph error with the HTTP status it is answered with. Thrown by handlers, rendered by the server. */
export class GraphError extends Error {
  override readonly name = "GraphError"
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly extra: GraphErrorExtra = {}
  ) {
    super(message)
  }

  /** The JSON body of this error, as the operator sends it. */
  toBody(fbtraceId: string): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { message: this.message, type: "OAuthException", code: this.code }
    if (this.extra.subcode !== undefined) error.error_subcode = this.extra.subcode
    if (this.extra.isTransient !== undefined) error.is_transient = this.extra.isTransient
    if (this.extra.userTitle !== undefined) error.error_user_title = this.extra.userTitle
    if (this.extra.userMsg !== undefined) error.error_user_msg = this.extra.userMsg
    error.error_data = { messaging_product: "whatsapp", details: this.extra.details ?? this.message }
    error.fbtrace_id = fbtraceId
    return { error }
  }
}

/** Constructors of the errors the emulator answers, named after their meaning (code in the comment). */
export const GraphErrors = {
  /** 190, HTTP 401. */
  invalidToken: (details: string) =>
    new GraphError(401, 190, "Invalid OAuth access token - Cannot parse access token", { details }),
  /** 100, HTTP 400: the generic Graph validation error. */
  invalidParameter: (details: string, extra: Omit<GraphErrorExtra, "details"> = {}) =>
    new GraphError(400, 100, "(#100) Invalid parameter", { ...extra, details, userMsg: extra.userMsg ?? details }),
  /** 100 subcode 33, HTTP 400: the object does not exist. */
  unknownObject: (id: string) =>
    new GraphError(
      400,
      100,
      `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      { subcode: 33 }
    ),
  /** 100 subcode 33 for GET/DELETE. */
  unknownObjectGet: (id: string, method: string) =>
    new GraphError(
      400,
      100,
      `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      { subcode: 33 }
    ),
  /** 100, HTTP 400: no such route. */
  unknownPath: (path: string) => new GraphError(400, 100, `Unknown path components: ${path}`),
  /** 130429, HTTP 429: the number's throughput is used up. */
  throughput: () =>
    new GraphError(429, 130429, "(#130429) Rate limit hit", {
      details: "Cloud API message throughput has been reached.",
      isTransient: true
    }),
  /** 131056, HTTP 400: too many messages to the same user. */
  pairRate: () =>
    new GraphError(400, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit", {
      details: "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.",
      isTransient: true
    }),
  /** 131016, HTTP 500. */
  serviceUnavailable: () =>
    new GraphError(500, 131016, "(#131016) Service unavailable", {
      details: "A service is temporarily unavailable. Please try again later.",
      isTransient: true
    }),
  /** 131047, HTTP 400: free-form message outside the 24-hour customer service window. */
  reengagement: () =>
    new GraphError(400, 131047, "(#131047) Re-engagement message", {
      details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number."
    }),
  /** 131009, HTTP 400. */
  invalidValue: (details: string) => new GraphError(400, 131009, "(#131009) Parameter value is not valid", { details }),
  /** 131008, HTTP 400. */
  missingParameter: (details: string) => new GraphError(400, 131008, "(#131008) Required parameter is missing", { details }),
  /** 132000, HTTP 400. */
  templateParamCount: (details: string) =>
    new GraphError(400, 132000, "(#132000) Number of parameters does not match the expected number of params", { details }),
  /** 132001, HTTP 400: no such template in that language, or not approved. */
  templateNotFound: (name: string, language: string) =>
    new GraphError(400, 132001, "(#132001) Template name does not exist in the translation", {
      details: `template name (${name}) does not exist in ${language}`
    }),
  /** 132015, HTTP 400. */
  templatePaused: (name: string) =>
    new GraphError(400, 132015, "(#132015) Template is Paused", { details: `Template ${name} is paused due to low quality.` }),
  /** 132016, HTTP 400. */
  templateDisabled: (name: string) =>
    new GraphError(400, 132016, "(#132016) Template is disabled", { details: `Template ${name} has been disabled.` })
} as const

/** The documentation link carried by status-webhook errors. */
export const errorDocsUrl = DOCS
