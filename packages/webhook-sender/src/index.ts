export * as WebhookSender from "./WebhookSender.js"
