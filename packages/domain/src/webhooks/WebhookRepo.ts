import { Context, type Effect, type Option } from "effect"
import type { Scope } from "../messaging/MessagingRepo.js"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { DeliveryAttempt, EndpointStatus, Event, EventType, WebhookEndpoint } from "./WebhookEndpoint.js"

/** Storage of caller webhook endpoints, events and delivery attempts, scoped by (store, mode). */
export class WebhookRepo extends Context.Tag("@switchboard/domain/WebhookRepo")<
  WebhookRepo,
  {
    readonly insertEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<void>
    readonly findEndpoint: (scope: Scope, id: string) => Effect.Effect<Option.Option<WebhookEndpoint>>
    /** By id only: for the delivery job, which carries the id it was created with. */
    readonly getEndpoint: (id: string) => Effect.Effect<Option.Option<WebhookEndpoint>>
    readonly listEndpoints: (scope: Scope, page: PageRequest) => Effect.Effect<Slice<WebhookEndpoint>>
    readonly updateEndpoint: (
      scope: Scope,
      id: string,
      patch: { readonly url?: string; readonly events?: ReadonlyArray<EventType>; readonly status?: EndpointStatus; readonly disabledReason?: string | null }
    ) => Effect.Effect<Option.Option<WebhookEndpoint>>
    readonly deleteEndpoint: (scope: Scope, id: string) => Effect.Effect<boolean>
    /** Enabled endpoints of the scope subscribed to `type`. */
    readonly subscribers: (scope: Scope, type: EventType) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
    readonly insertEvent: (event: Event) => Effect.Effect<void>
    readonly getEvent: (id: string) => Effect.Effect<Option.Option<Event>>
    readonly recordAttempt: (attempt: DeliveryAttempt) => Effect.Effect<void>
    /** Attempts for one endpoint, newest first. */
    readonly listAttempts: (scope: Scope, endpointId: string, page: PageRequest) => Effect.Effect<Slice<DeliveryAttempt & { readonly eventType: string }>>
  }
>() {}
