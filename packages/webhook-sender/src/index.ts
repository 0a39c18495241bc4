export * as WebhookSender from "./WebhookSender.js"
export * as FeedFiles from "./FeedFiles.js"
