/**
 * Graph API errors in the operator's wire format (GRAPH_API.md §1.1):
 * `{error:{message, type:"OAuthException", code, error_subcode?, error_user_title?, error_user_msg?,
 * is_transient?, error_data:{messaging_product:"whatsapp", details}, fbtrace_id}}`.
 */

const DOCS = "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"

/**
 * Every error code and subcode the emulator answers or reports in a status webhook, named
 * once (GRAPH_API.md §10, §4.2). The emulator plays the operator and imports nothing of
 * Switchboard's, so this table is its own: Switchboard's names are in
 * `@switchboard/domain`'s `OperatorErrorCode`, and the two agree only through the wire.
 */
export const ErrorCode = {
  /** An unknown error (answered HTTP 500 for an unexpected failure of a handler). */
  UNKNOWN: 1,
  /** Invalid parameter: the Graph's generic validation error. */
  INVALID_PARAMETER: 100,
  /** The access token is invalid. */
  INVALID_TOKEN: 190,
  /** The catalog's `items_batch` call quota is used up. */
  CATALOG_BATCH_RATE_LIMIT: 80014,
  /** The number's throughput is used up. */
  RATE_LIMIT_HIT: 130429,
  /** Something went wrong on the operator's side; temporary (status webhook of a `…0006` send). */
  SOMETHING_WENT_WRONG: 131000,
  /** Required send parameter missing. */
  MISSING_PARAMETER: 131008,
  /** A send parameter's value is invalid. */
  INVALID_PARAMETER_VALUE: 131009,
  /** Service temporarily unavailable. */
  SERVICE_UNAVAILABLE: 131016,
  /** Undeliverable (status webhook). */
  UNDELIVERABLE: 131026,
  /** Outside the 24-hour customer service window. */
  REENGAGEMENT: 131047,
  /** Restrictions on how many messages this number may send (spam rate limit; also our messaging limit refusal). */
  SPAM_RATE_LIMIT: 131048,
  /** Held back by the per-user marketing cap ("healthy ecosystem engagement"). */
  MARKETING_CAP: 131049,
  /** The user stopped marketing messages (status webhook). */
  USER_STOPPED_MARKETING: 131050,
  /** The messaging limit was hit because of template-classification violations. */
  TEMPLATE_CLASSIFICATION_LIMIT: 131064,
  /** Too many messages to the same user. */
  PAIR_RATE_LIMIT: 131056,
  /** The template's parameter count does not match. */
  TEMPLATE_PARAM_COUNT: 132000,
  /** No such template in that language, or not approved. */
  TEMPLATE_NOT_FOUND: 132001,
  /** The template is paused. */
  TEMPLATE_PAUSED: 132015,
  /** The template is disabled. */
  TEMPLATE_DISABLED: 132016,
  /** The flow is blocked (health monitoring or integrity). */
  FLOW_BLOCKED: 132068,
  /** Updating the flow failed (not a draft, JSON processing, endpoint_uri in Flow JSON 3.0+). */
  FLOW_UPDATE_FAILED: 139001,
  /** Publishing the flow failed (not a draft, or not valid). */
  FLOW_PUBLISH_FAILED: 139002,
  /** Deprecating the flow failed (not published, or already deprecated). */
  FLOW_DEPRECATE_FAILED: 139003,
  /** Deleting the flow failed (not a draft). */
  FLOW_DELETE_FAILED: 139004
} as const

/** Subcodes of `INVALID_PARAMETER` the emulator answers. */
export const ErrorSubcode = {
  /** The object does not exist or cannot be loaded. */
  UNKNOWN_OBJECT: 33,
  /** A template with this name and language already exists. */
  TEMPLATE_EXISTS: 2388024,
  /** A template field is too long. */
  TEMPLATE_FIELD_TOO_LONG: 2388040,
  /** A template HEADER is malformed. */
  TEMPLATE_HEADER_FORMAT: 2388047,
  /** A template FOOTER is malformed. */
  TEMPLATE_FOOTER_FORMAT: 2388073,
  /** A template body starts or ends with a variable, or has adjacent variables. */
  TEMPLATE_VARIABLE_PLACEMENT: 2388299
} as const

/** Optional parts of a Graph error. */
export interface GraphErrorExtra {
  readonly subcode?: number
  readonly userTitle?: string
  readonly userMsg?: string
  readonly details?: string
  readonly isTransient?: boolean
  /** Headers answered with the error (e.g. the usage of a business use case that ran out). */
  readonly headers?: Readonly<Record<string, string>>
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
    new GraphError(401, ErrorCode.INVALID_TOKEN, "Invalid OAuth access token - Cannot parse access token", { details }),
  /** 100, HTTP 400: the generic Graph validation error. */
  invalidParameter: (details: string, extra: Omit<GraphErrorExtra, "details"> = {}) =>
    new GraphError(400, ErrorCode.INVALID_PARAMETER, "(#100) Invalid parameter", { ...extra, details, userMsg: extra.userMsg ?? details }),
  /** 100 subcode 33, HTTP 400: the object does not exist. */
  unknownObject: (id: string) =>
    new GraphError(
      400,
      ErrorCode.INVALID_PARAMETER,
      `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      { subcode: ErrorSubcode.UNKNOWN_OBJECT }
    ),
  /** 100 subcode 33 for GET/DELETE. */
  unknownObjectGet: (id: string, method: string) =>
    new GraphError(
      400,
      ErrorCode.INVALID_PARAMETER,
      `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      { subcode: ErrorSubcode.UNKNOWN_OBJECT }
    ),
  /** 100, HTTP 400: no such route. */
  unknownPath: (path: string) => new GraphError(400, ErrorCode.INVALID_PARAMETER, `Unknown path components: ${path}`),
  /** 100, HTTP 400: an edge of a WABA asked of a phone number id. */
  nonexistingField: (field: string, id: string) => {
    const details = `Tried accessing nonexisting field (${field}) on node type (WhatsAppBusinessPhoneNumber) with id ${id}.`
    return new GraphError(400, ErrorCode.INVALID_PARAMETER, "(#100) Invalid parameter", { details, userMsg: details })
  },
  /** 1, HTTP 500: a handler failed unexpectedly. */
  unknown: (details: string) => new GraphError(500, ErrorCode.UNKNOWN, "An unknown error occurred", { isTransient: true, details }),
  /**
   * 80014, HTTP 400: the catalog's `items_batch` quota ("Catalog Batch" business use case) is
   * used up; the usage header says when a call is possible again (in minutes, rounded up).
   */
  catalogBatchRateLimit: (catalogId: string, retryAfterMs: number) =>
    new GraphError(400, ErrorCode.CATALOG_BATCH_RATE_LIMIT, "(#80014) There have been too many calls for this catalog. Wait a bit and try again.", {
      isTransient: true,
      details: "Catalog batch API rate limit reached.",
      headers: {
        "x-business-use-case-usage": JSON.stringify({
          [catalogId]: [
            {
              type: "catalog_batch",
              call_count: 100,
              total_cputime: 1,
              total_time: 1,
              estimated_time_to_regain_access: Math.max(1, Math.ceil(retryAfterMs / 60_000))
            }
          ]
        })
      }
    }),
  /** 130429, HTTP 429: the number's throughput is used up. */
  throughput: () =>
    new GraphError(429, ErrorCode.RATE_LIMIT_HIT, "(#130429) Rate limit hit", {
      details: "Cloud API message throughput has been reached.",
      isTransient: true
    }),
  /** 131056, HTTP 400: too many messages to the same user. */
  pairRate: () =>
    new GraphError(400, ErrorCode.PAIR_RATE_LIMIT, "(#131056) (Business Account, Consumer Account) pair rate limit hit", {
      details: "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.",
      isTransient: true
    }),
  /**
   * 131048, HTTP 400: the business portfolio reached its messaging limit (unique users outside
   * the customer window in the rolling 24 h). The operator documents no dedicated code for
   * this; we answer its "restrictions on how many messages can be sent from this phone
   * number" refusal.
   */
  messagingLimit: (tier: string) =>
    new GraphError(400, ErrorCode.SPAM_RATE_LIMIT, "(#131048) Spam rate limit hit", {
      details: `Message failed to send because there are restrictions on how many messages can be sent from this phone number (messaging limit ${tier} reached in the rolling 24 hours).`
    }),
  /**
   * A refusal forced through the control API (`POST /_emulator/refusals`): 131048 (spam rate
   * limit), 131049 (per-user marketing cap) or 131064 (template-classification messaging
   * limit), HTTP 400.
   */
  forced: (code: number): GraphError => {
    switch (code) {
      case ErrorCode.SPAM_RATE_LIMIT:
        return new GraphError(400, code, "(#131048) Spam rate limit hit", {
          details: "Message failed to send because there are restrictions on how many messages can be sent from this phone number."
        })
      case ErrorCode.MARKETING_CAP:
        return new GraphError(400, code, "(#131049) This message was not delivered to maintain healthy ecosystem engagement.", {
          details: "In order to maintain a healthy ecosystem engagement, the message failed to be delivered."
        })
      default:
        return new GraphError(400, code, `(#${code}) Messaging limit hit due to template classification violations`, {
          details: "Message failed to send because the messaging limit was reached because of template category violations."
        })
    }
  },
  /** 131016, HTTP 500. */
  serviceUnavailable: () =>
    new GraphError(500, ErrorCode.SERVICE_UNAVAILABLE, "(#131016) Service unavailable", {
      details: "A service is temporarily unavailable. Please try again later.",
      isTransient: true
    }),
  /** 131047, HTTP 400: free-form message outside the 24-hour customer service window. */
  reengagement: () =>
    new GraphError(400, ErrorCode.REENGAGEMENT, "(#131047) Re-engagement message", {
      details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number."
    }),
  /** 131009, HTTP 400. */
  invalidValue: (details: string) => new GraphError(400, ErrorCode.INVALID_PARAMETER_VALUE, "(#131009) Parameter value is not valid", { details }),
  /** 131008, HTTP 400. */
  missingParameter: (details: string) => new GraphError(400, ErrorCode.MISSING_PARAMETER, "(#131008) Required parameter is missing", { details }),
  /** 132000, HTTP 400. */
  templateParamCount: (details: string) =>
    new GraphError(400, ErrorCode.TEMPLATE_PARAM_COUNT, "(#132000) Number of parameters does not match the expected number of params", { details }),
  /** 132001, HTTP 400: no such template in that language, or not approved. */
  templateNotFound: (name: string, language: string) =>
    new GraphError(400, ErrorCode.TEMPLATE_NOT_FOUND, "(#132001) Template name does not exist in the translation", {
      details: `template name (${name}) does not exist in ${language}`
    }),
  /** 132015, HTTP 400. */
  templatePaused: (name: string) =>
    new GraphError(400, ErrorCode.TEMPLATE_PAUSED, "(#132015) Template is Paused", { details: `Template ${name} is paused due to low quality.` }),
  /** 132016, HTTP 400. */
  templateDisabled: (name: string) =>
    new GraphError(400, ErrorCode.TEMPLATE_DISABLED, "(#132016) Template is disabled", { details: `Template ${name} has been disabled.` }),
  /** 131008, HTTP 400: a button the template declares with a variable got no parameter in the send. */
  buttonParameterMissing: (index: number, type: string) =>
    new GraphError(400, ErrorCode.MISSING_PARAMETER, "(#131008) Required parameter is missing", {
      details: `buttons: Button at index ${index} of type ${type} requires a parameter`
    }),
  /** 131009, HTTP 400: a flow message names a flow the WABA does not have. */
  flowNotFound: (ref: string) =>
    new GraphError(400, ErrorCode.INVALID_PARAMETER_VALUE, "(#131009) Parameter value is not valid", {
      details: `Flow ${ref} does not exist, or the sender's WhatsApp Business Account cannot access it.`
    }),
  /** 131009, HTTP 400: the flow's status does not allow this send. */
  flowNotSendable: (id: string, why: string) =>
    new GraphError(400, ErrorCode.INVALID_PARAMETER_VALUE, "(#131009) Parameter value is not valid", {
      details: `Flow ${id} cannot be sent: ${why}.`
    }),
  /** 132068, HTTP 400. */
  flowBlocked: (id: string) =>
    new GraphError(400, ErrorCode.FLOW_BLOCKED, "(#132068) Flow is in blocked state", { details: `Flow ${id} is blocked.` }),
  /** 139001, HTTP 400. */
  flowUpdateFailed: (details: string) => new GraphError(400, ErrorCode.FLOW_UPDATE_FAILED, "(#139001) Flow update failed", { details }),
  /** 139004, HTTP 400. */
  flowDeleteFailed: (details: string) => new GraphError(400, ErrorCode.FLOW_DELETE_FAILED, "(#139004) Deleting Flow failed", { details }),
  /** 139002, HTTP 400. */
  flowPublishFailed: (details: string) => new GraphError(400, ErrorCode.FLOW_PUBLISH_FAILED, "(#139002) Publishing Flow failed", { details }),
  /** 139003, HTTP 400. */
  flowDeprecateFailed: (details: string) => new GraphError(400, ErrorCode.FLOW_DEPRECATE_FAILED, "(#139003) Deprecating Flow failed", { details }),
  /** 100 subcode 2388024, HTTP 400: a template with this name and language exists. */
  templateExists: (name: string, language: string) =>
    new GraphError(400, ErrorCode.INVALID_PARAMETER, "(#100) Invalid parameter", {
      subcode: ErrorSubcode.TEMPLATE_EXISTS,
      userTitle: "Message template already exists",
      userMsg: `There is already ${language} content for this template (${name}). You can create a new template and try again.`,
      details: `Message template ${name} in ${language} already exists.`
    }),
  /** 100, HTTP 400: a delete names no template. */
  templateNameNotFound: (name: string) =>
    new GraphError(400, ErrorCode.INVALID_PARAMETER, `Message template "${name}" not found`, {
      userTitle: "Message Template Not Found",
      userMsg: `Message template "${name}" could not be found.`,
      details: `Message template "${name}" not found`
    })
} as const

/** The documentation link carried by status-webhook errors. */
export const errorDocsUrl = DOCS
