/**
 * The Switchboard API as one `HttpApi` definition: the server, the OpenAPI document and any
 * typed client (`HttpApiClient.make(SwitchboardApi)`) all come from it. It is also the one
 * place that names each module's routes: a new module adds its group (`<module>/Api.ts`) to
 * `SwitchboardApi` and its handlers (`<module>/Http.ts`) to `Handlers`.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { Layer } from "effect"
import * as ApiError from "./ApiError.js"
import * as OpenApiDocument from "./openapi/Document.js"
import { CallsGroup } from "./calls/Api.js"
import { CallsLive } from "./calls/Http.js"
import { CampaignsGroup } from "./campaigns/Api.js"
import { CampaignsHot, CampaignsLive } from "./campaigns/Http.js"
import { CatalogsGroup } from "./commerce/CatalogsApi.js"
import { CatalogsLive } from "./commerce/CatalogsHttp.js"
import { FeedsGroup } from "./commerce/FeedsApi.js"
import { MediaGroup } from "./media/Api.js"
import { MediaLive } from "./media/Http.js"
import { FeedsLive } from "./commerce/FeedsHttp.js"
import { ProductsGroup } from "./commerce/ProductsApi.js"
import { ProductsLive } from "./commerce/ProductsHttp.js"
import { CommerceSettingsGroup } from "./commerce/SettingsApi.js"
import { CommerceSettingsLive } from "./commerce/SettingsHttp.js"
import { OrdersGroup } from "./orders/OrdersApi.js"
import { OrdersHot, OrdersLive } from "./orders/OrdersHttp.js"
import { RefundsGroup } from "./orders/RefundsApi.js"
import { RefundsLive } from "./orders/RefundsHttp.js"
import { FulfilmentGroup } from "./orders/FulfilmentApi.js"
import { FulfilmentLive } from "./orders/FulfilmentHttp.js"
import { ShippingProfilesGroup } from "./commerce/ShippingApi.js"
import { ShippingProfilesLive } from "./commerce/ShippingHttp.js"
import { FlowsGroup, FlowsPublicGroup } from "./flows/Api.js"
import { FlowsLive, FlowsRaw } from "./flows/Http.js"
import { HealthGroup } from "./health/Api.js"
import { HealthLive } from "./health/Http.js"
import { withApiErrors } from "./internal/Handlers.js"
import { CustomersGroup, MessagesGroup, OptOutsGroup, SandboxGroup } from "./messaging/Api.js"
import { CustomersLive, MessagesHot, MessagesLive, OptOutsLive, SandboxLive } from "./messaging/Http.js"
import { OperatorWebhookGroup } from "./operator-webhook/Api.js"
import { OperatorWebhookLive, OperatorWebhookRaw } from "./operator-webhook/Http.js"
import { TemplatesGroup } from "./templates/Api.js"
import { TemplatesHot, TemplatesLive } from "./templates/Http.js"
import { WebhooksGroup } from "./webhooks/Api.js"
import { WebhooksLive } from "./webhooks/Http.js"
import { AccountGroup, AccountLive } from "./admin/AccountApi.js"
import { AdminGroup } from "./admin/Api.js"
import { AdminLive } from "./admin/Http.js"
import { WebhookDeliveriesGroup } from "./webhooks/DeliveriesApi.js"
import { WebhookDeliveriesLive } from "./webhooks/DeliveriesHttp.js"

const api = HttpApi.make("switchboard")
  .add(TemplatesGroup)
  .add(MessagesGroup)
  .add(CustomersGroup)
  .add(OptOutsGroup)
  .add(WebhooksGroup)
  .add(WebhookDeliveriesGroup)
  .add(SandboxGroup)
  .add(CampaignsGroup)
  .add(CatalogsGroup)
  .add(ProductsGroup)
  .add(FeedsGroup)
  .add(ShippingProfilesGroup)
  .add(CommerceSettingsGroup)
  .add(OrdersGroup)
  .add(RefundsGroup)
  .add(FulfilmentGroup)
  .add(CallsGroup)
  .add(FlowsGroup)
  .add(MediaGroup)
  .add(FlowsPublicGroup)
  .add(OperatorWebhookGroup)
  .add(HealthGroup)
  .add(AdminGroup)
  .add(AccountGroup)

export class SwitchboardApi extends withApiErrors(api)
  .annotate(HttpApi.AdditionalSchemas, [ApiError.IdempotencyKeyInUse, ApiError.IdempotencyKeyReused])
  .annotateContext(
    OpenApi.annotations({
      title: "Switchboard",
      version: "0.1.0",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
      servers: OpenApiDocument.servers,
      transform: OpenApiDocument.finishFor(api.groups),
      description:
        "Commerce, calls, templates, campaigns and flows on the WhatsApp Business Platform. Authenticate with `Authorization: Bearer sk_live_…` or `sk_test_…`."
    })
  ) {}

/** The handlers of every group of `SwitchboardApi`. */
export const Handlers = Layer.mergeAll(
  TemplatesLive,
  MessagesLive,
  CustomersLive,
  OptOutsLive,
  WebhooksLive,
  WebhookDeliveriesLive,
  AdminLive,
  AccountLive,
  SandboxLive,
  CampaignsLive,
  CatalogsLive,
  ProductsLive,
  FeedsLive,
  MediaLive,
  ShippingProfilesLive,
  CommerceSettingsLive,
  OrdersLive,
  RefundsLive,
  FulfilmentLive,
  CallsLive,
  FlowsLive,
  OperatorWebhookLive,
  HealthLive
)

/** The hot read routes the fast lane answers (`FastLane.ts`), declared by their modules. */
export const HotRoutes = [...TemplatesHot, ...MessagesHot, ...CampaignsHot, ...OrdersHot]

/** The raw POST routes the fast lane answers (signed webhooks, the hosted flow data endpoint). */
export const RawRoutes = [...OperatorWebhookRaw, ...FlowsRaw]
