/** The caller-webhooks module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as WebhookEndpoint from "./WebhookEndpoint.js"
export * as WebhookRepo from "./WebhookRepo.js"
export * as WebhookTransport from "./WebhookTransport.js"
export * as Webhooks from "./Webhooks.js"
export * as WebhookDeliveries from "./Deliveries.js"
export * as WebhooksModule from "./module.js"
