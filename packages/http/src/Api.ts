/**
 * The Switchboard API as one `HttpApi` definition: the server, the OpenAPI document and any
 * typed client (`HttpApiClient.make(SwitchboardApi)`) all come from it.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import * as ApiError from "./ApiError.js"
import * as OpenApiDocument from "./openapi/Document.js"
import { CampaignsGroup } from "./campaigns/Api.js"
import { HealthGroup } from "./groups/Health.js"
import { OperatorWebhookGroup } from "./groups/OperatorWebhook.js"
import { CustomersGroup, MessagesGroup, OptOutsGroup, SandboxGroup } from "./messaging/Api.js"
import { TemplatesGroup } from "./templates/Api.js"
import { WebhooksGroup } from "./webhooks/Api.js"

export class SwitchboardApi extends HttpApi.make("switchboard")
  .add(TemplatesGroup)
  .add(MessagesGroup)
  .add(CustomersGroup)
  .add(OptOutsGroup)
  .add(WebhooksGroup)
  .add(SandboxGroup)
  .add(CampaignsGroup)
  .add(OperatorWebhookGroup)
  .add(HealthGroup)
  .addError(ApiError.ValidationFailed)
  .addError(ApiError.Unauthorized)
  .addError(ApiError.NoRoute)
  .addError(ApiError.TooLarge)
  .addError(ApiError.UnsupportedType)
  .addError(ApiError.Internal)
  .annotate(HttpApi.AdditionalSchemas, [ApiError.IdempotencyKeyInUse, ApiError.IdempotencyKeyReused])
  .annotateContext(
    OpenApi.annotations({
      title: "Switchboard",
      version: "0.1.0",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
      servers: OpenApiDocument.servers,
      transform: OpenApiDocument.finish,
      description:
        "Commerce, calls, templates, campaigns and flows on the WhatsApp Business Platform. Authenticate with `Authorization: Bearer sk_live_…` or `sk_test_…`."
    })
  ) {}
