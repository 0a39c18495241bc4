export * as GraphTransport from "./GraphTransport.js"
export * as OperatorClient from "./OperatorClient.js"
export * as WebhookSignature from "./WebhookSignature.js"
