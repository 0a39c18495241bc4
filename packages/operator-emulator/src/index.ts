/**
 * `@switchboard/operator-emulator`: a local HTTP server that behaves like the WhatsApp Business
 * Platform (Graph API wire format, signed webhooks, deterministic sandbox outcomes, rate limits
 * and fault injection). It imports nothing from other Switchboard packages.
 */
export { startEmulator } from "./Emulator.js"
export type { Emulator } from "./Emulator.js"
export { ConfigError, defaultConfig } from "./Config.js"
export type { EmulatorConfig, EmulatorOptions } from "./Config.js"
export { GraphError } from "./GraphError.js"
export { CUSTOMER_WINDOW_MS } from "./Customers.js"
export { outcomeFor } from "./SendOutcomes.js"
export type { SendStats, SentMessage } from "./Messaging.js"
export { isPromotional } from "./TemplateValidation.js"
export type { TemplateCategory, TemplateStatus } from "./Templates.js"
export { signWebhook } from "./Webhooks.js"
