export * as Outbound from "./Outbound.js"
export * as WebhookSender from "./WebhookSender.js"
export * as FeedFiles from "./FeedFiles.js"
export * as FlowExchange from "./FlowExchange.js"
