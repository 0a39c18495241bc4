/**
 * Every capability of the operator over HTTP in one layer, for a server that wants them all:
 * `TemplateOperator`, `MessageOperator`, `CommerceOperator`, `OrderOperator`, `CallOperator`,
 * `FlowOperator`, `SandboxCustomer` (the domain's tags), what checks and answers the
 * operator's requests to us (`OperatorWebhookVerifier`, and `FlowCrypto` for a flow's data
 * endpoint, keyed by `SWITCHBOARD_FLOW_SECRET`), and the shared `GraphApi` they run on (its `registerSandboxAccount`
 * is what the server calls at start). The same client serves live accounts (the real
 * operator) and sandbox accounts (the emulator): the account's `kind` picks the endpoint.
 *
 * One capability alone: its own layer on `GraphApi.layer`, e.g.
 * `MessageClient.layer.pipe(Layer.provide(GraphApi.layer(config)))`.
 *
 * Requires a `GraphTransport`; never provides one.
 */
import type {
  CallOperator,
  CommerceOperator,
  FlowCrypto,
  FlowOperator,
  MediaPorts,
  MessageOperator,
  OperatorWebhookVerifier,
  OrderOperator,
  SandboxCustomer,
  TemplateOperator
} from "@switchboard/domain"
import { Config, type ConfigError, Effect, Layer, type Redacted } from "effect"
import * as CallClient from "./CallClient.js"
import * as CommerceClient from "./CommerceClient.js"
import * as FlowClient from "./FlowClient.js"
import * as FlowCryptoLive from "./FlowCryptoLive.js"
import * as GraphApi from "./GraphApi.js"
import type { GraphTransport } from "./GraphTransport.js"
import * as MessageClient from "./MessageClient.js"
import * as MediaClient from "./MediaClient.js"
import * as OrderClient from "./OrderClient.js"
import * as SandboxClient from "./SandboxClient.js"
import * as TemplateClient from "./TemplateClient.js"
import * as WebhookVerifier from "./WebhookVerifier.js"

/** The endpoints and retry settings of every capability; the endpoints' app secrets and `verifyToken` serve the `WebhookVerifier`. */
export interface OperatorClientConfig extends GraphApi.GraphApiConfig {
  /** Our verify token of the webhook subscription handshake. */
  readonly verifyToken: Redacted.Redacted<string>
}

/** What `layer` provides. */
export type Services =
  | GraphApi.GraphApi
  | TemplateOperator.TemplateOperator
  | MessageOperator.MessageOperator
  | OperatorWebhookVerifier.OperatorWebhookVerifier
  | SandboxCustomer.SandboxCustomer
  | CommerceOperator.CommerceOperator
  | OrderOperator.OrderOperator
  | CallOperator.CallOperator
  | FlowOperator.FlowOperator
  | FlowCrypto.FlowCrypto
  | MediaPorts.MediaOperator

/** Every capability, sharing one `GraphApi` (one sandbox registration per number, one set of retry rules). */
export const layer = (config: OperatorClientConfig): Layer.Layer<Services, never, GraphTransport> =>
  Layer.mergeAll(
    TemplateClient.layer,
    MessageClient.layer,
    SandboxClient.layer,
    CommerceClient.layer,
    OrderClient.layer,
    CallClient.layer,
    FlowClient.layer,
    MediaClient.layer
  ).pipe(Layer.provideMerge(GraphApi.layer(config)), Layer.merge(WebhookVerifier.layer(config)), Layer.merge(FlowCryptoLive.layer))

/** `layer` with its configuration read from `Config` (e.g. environment variables). */
export const layerConfig = (config: Config.Config.Wrap<OperatorClientConfig>): Layer.Layer<Services, ConfigError.ConfigError, GraphTransport> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))

/** Registers a sandbox account with the emulator (see `GraphApi.registerSandboxAccount`). */
export const registerSandboxAccount = GraphApi.registerSandboxAccount
