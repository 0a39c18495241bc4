/**
 * Tunable behaviour of the emulator: rate limits, review and status timing, fault injection
 * and webhook batching. Every value can be changed at run time (`Emulator.configure` or
 * `POST /_emulator/config`); a change applies to the next request.
 */
export interface EmulatorConfig {
  /** Accepted sends per phone number id in any sliding one-second window (default 80); excess answers 130429 (HTTP 429). */
  messagesPerSecond: number
  /** Same business number to the same user: token bucket of this capacity (default 5), refilled 1 per 6 s; excess answers 131056. */
  pairBurst: number
  /** Time from template creation to its review decision (default 1500 ms). */
  templateReviewDelayMs: number
  /** Gap between consecutive status webhooks of one message (sent, delivered, read), default 250 ms. */
  statusDelayMs: number
  /** Share (0..1) of send requests answered with a throughput error (130429, HTTP 429) without recording the send. */
  rate429: number
  /** Share (0..1) of send requests answered HTTP 500 code 131016 without recording the send. */
  rate5xx: number
  /**
   * Share (0..1) of send requests whose message IS recorded and whose statuses ARE sent, but
   * whose HTTP answer is a 500 (131016): a response lost on the way back.
   */
  rateAcceptedButLost: number
  /** Latency added to every Graph request (default 0 ms). */
  latencyMs: number
  /** Statuses are batched per phone number for this long into one webhook POST (default 20 ms); 0 = one POST per status. */
  webhookBatchMs: number
  /** Largest number of statuses in one batched webhook POST (default 100). */
  webhookBatchMax: number
  /** `items_batch` calls a catalog may make in any `catalogBatchWindowMs` (default 10); the next answers 80014. */
  catalogBatchCalls: number
  /** The window of the catalog batch quota (default 60000 ms). */
  catalogBatchWindowMs: number
  /** Time an accepted `items_batch` chunk takes to finish (default 200 ms). */
  itemsBatchProcessMs: number
  /** The messaging limit of a new sandbox account (unique users per window; -1: unlimited; default 250, TIER_250). */
  defaultMessagingLimit: number
  /** The messaging limit's rolling window (default 24 h; shorter only in tests). */
  messagingWindowMs: number
}

/** Options of `startEmulator`: the configuration plus the process-level settings. */
export interface EmulatorOptions extends Partial<EmulatorConfig> {
  /** Port to listen on; 0 (default) picks a free port. */
  port?: number
  /** Interface to bind, default 127.0.0.1. */
  host?: string
  /** HMAC-SHA256 key of the `X-Hub-Signature-256` header on every webhook POST (the app secret). */
  appSecret: string
  /**
   * Where webhooks are POSTed; can be set later with `setWebhookUrl`. Until then background
   * webhooks (statuses, template reviews) are held and sent once a URL is set; the synchronous
   * control routes (`/_emulator/inbound`, `/_emulator/webhook`) answer 502.
   */
  webhookUrl?: string
  /**
   * When set, Graph requests must carry `Authorization: Bearer <accessToken>`, else error 190 (HTTP 401).
   * When unset, any non-empty bearer token is accepted; a missing one still answers 190.
   */
  accessToken?: string
  /**
   * When set, accounts, phone numbers, templates and customer windows are loaded from this JSON
   * file at start and written back (atomically: temporary file then rename, debounced ~100 ms).
   */
  stateFile?: string
  /** Receives one human-readable line per notable event (dropped webhooks, retries). Silent by default. */
  log?: (line: string) => void
}

/** The defaults of every `EmulatorConfig` field. */
export const defaultConfig: EmulatorConfig = {
  messagesPerSecond: 80,
  pairBurst: 5,
  templateReviewDelayMs: 1500,
  statusDelayMs: 250,
  rate429: 0,
  rate5xx: 0,
  rateAcceptedButLost: 0,
  latencyMs: 0,
  webhookBatchMs: 20,
  webhookBatchMax: 100,
  catalogBatchCalls: 10,
  catalogBatchWindowMs: 60_000,
  itemsBatchProcessMs: 200,
  defaultMessagingLimit: 250,
  messagingWindowMs: 86_400_000
}

/** Raised when a configuration patch holds an unknown key or a value out of range. */
export class ConfigError extends Error {
  override readonly name = "ConfigError"
}

type Rule = { readonly min: number; readonly max: number; readonly integer: boolean }

const rules: { readonly [K in keyof EmulatorConfig]: Rule } = {
  messagesPerSecond: { min: 1, max: 1_000_000, integer: true },
  pairBurst: { min: 1, max: 1_000_000, integer: true },
  templateReviewDelayMs: { min: 0, max: 86_400_000, integer: false },
  statusDelayMs: { min: 0, max: 86_400_000, integer: false },
  rate429: { min: 0, max: 1, integer: false },
  rate5xx: { min: 0, max: 1, integer: false },
  rateAcceptedButLost: { min: 0, max: 1, integer: false },
  latencyMs: { min: 0, max: 600_000, integer: false },
  webhookBatchMs: { min: 0, max: 60_000, integer: false },
  webhookBatchMax: { min: 1, max: 10_000, integer: true },
  catalogBatchCalls: { min: 1, max: 1_000_000, integer: true },
  catalogBatchWindowMs: { min: 1, max: 86_400_000, integer: false },
  itemsBatchProcessMs: { min: 0, max: 3_600_000, integer: false },
  defaultMessagingLimit: { min: -1, max: 100_000, integer: true },
  messagingWindowMs: { min: 1, max: 86_400_000, integer: false }
}

/**
 * Returns `base` with `patch` applied, after checking every patched value.
 * Keys whose value is `undefined` are ignored; unknown keys and out-of-range values throw `ConfigError`.
 */
export const applyConfigPatch = (base: EmulatorConfig, patch: Partial<EmulatorConfig> | Record<string, unknown>): EmulatorConfig => {
  const next: EmulatorConfig = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    if (!Object.hasOwn(rules, key)) throw new ConfigError(`unknown configuration key: ${key}`)
    const rule = rules[key as keyof EmulatorConfig]
    if (typeof value !== "number" || !Number.isFinite(value)) throw new ConfigError(`${key} must be a finite number`)
    if (value < rule.min || value > rule.max) throw new ConfigError(`${key} must be between ${rule.min} and ${rule.max}`)
    if (rule.integer && !Number.isInteger(value)) throw new ConfigError(`${key} must be an integer`)
    next[key as keyof EmulatorConfig] = value
  }
  return next
}

/** Picks the `EmulatorConfig` fields out of `options` (ignoring the process-level settings). */
export const configFromOptions = (options: EmulatorOptions): EmulatorConfig => {
  const patch: Partial<EmulatorConfig> = {}
  for (const key of Object.keys(rules) as Array<keyof EmulatorConfig>) {
    if (options[key] !== undefined) patch[key] = options[key]
  }
  return applyConfigPatch(defaultConfig, patch)
}
