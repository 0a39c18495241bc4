/**
 * Storage of caller webhook endpoints, events and delivery attempts. Endpoints and events
 * belong to a tenant (store and mode); attempts belong to an endpoint and are only listed
 * through an endpoint of the caller's tenant.
 *
 * `WebhookRepo` holds what routes reach (tenant first; emitting an event is reachable from
 * routes too); `WebhookDeliveryRepo` what only the delivery job does, by the ids its
 * payload carries.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type {
  AttemptFilter,
  DeliveryAttempt,
  DeliveryId,
  EndpointStatus,
  Event,
  EventId,
  ListedAttempt,
  WebhookEndpoint,
  WebhookEndpointId
} from "./WebhookEndpoint.js"

export class WebhookRepo extends Context.Tag("@switchboard/domain/WebhookRepo")<
  WebhookRepo,
  {
    /** Stores the endpoint in the tenant. */
    readonly insertEndpoint: (tenant: Tenant, endpoint: WebhookEndpoint) => Effect.Effect<void>
    readonly findEndpoint: (tenant: Tenant, id: WebhookEndpointId) => Effect.Effect<Option.Option<WebhookEndpoint>>
    /** Newest first, rows with id < `after` when given. */
    readonly listEndpoints: (
      tenant: Tenant,
      page: PageRequest & { readonly after?: WebhookEndpointId | undefined }
    ) => Effect.Effect<Slice<WebhookEndpoint>>
    /** Changes the given fields (and `updatedAt`); None when the tenant has no such endpoint. */
    readonly updateEndpoint: (
      tenant: Tenant,
      id: WebhookEndpointId,
      patch: {
        readonly url?: string
        readonly events?: ReadonlyArray<string>
        readonly status?: EndpointStatus
        readonly disabledReason?: string | null
      }
    ) => Effect.Effect<Option.Option<WebhookEndpoint>>
    /** Deletes the endpoint and its attempts in one transaction; false when the tenant has no such endpoint. */
    readonly deleteEndpoint: (tenant: Tenant, id: WebhookEndpointId) => Effect.Effect<boolean>
    /** Enabled endpoints of the tenant subscribed to `type` (exactly that type). */
    readonly subscribers: (tenant: Tenant, type: string) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
    /** Records events of the tenant, in one statement for a few hundred. */
    readonly insertEvents: (tenant: Tenant, events: ReadonlyArray<Event>) => Effect.Effect<void>
    /** Attempts to the tenant's endpoints (one endpoint, one event, one outcome when the filter names it), newest first, with their event's type. */
    readonly listAttempts: (
      tenant: Tenant,
      filter: AttemptFilter,
      page: PageRequest & { readonly after?: DeliveryId | undefined }
    ) => Effect.Effect<Slice<ListedAttempt>>
    /** One attempt to an endpoint of the tenant; None for another tenant's. */
    readonly findAttempt: (tenant: Tenant, id: DeliveryId) => Effect.Effect<Option.Option<ListedAttempt>>
  }
>() {}

/** What the delivery job reads and writes (the worker only; routes never receive it). */
export class WebhookDeliveryRepo extends Context.Tag("@switchboard/domain/WebhookDeliveryRepo")<
  WebhookDeliveryRepo,
  {
    /** By id only: the job carries the id it was created with. */
    readonly getEndpoint: (id: WebhookEndpointId) => Effect.Effect<Option.Option<WebhookEndpoint>>
    readonly getEvent: (id: EventId) => Effect.Effect<Option.Option<Event>>
    /** Records an attempt; an attempt for an endpoint deleted meanwhile is dropped. */
    readonly recordAttempt: (attempt: DeliveryAttempt) => Effect.Effect<void>
  }
>() {}
