/**
 * The one list of domain modules, and the one place that names them. A new module adds two
 * lines here: `export * from "./<module>/index.js"` (its public names, which
 * `@switchboard/domain` re-exports) and its descriptor (`<module>/module.ts`, see
 * `shared/Module.ts`) in the list. What the service runs is built from the list
 * (`Registry.ts`, beside this file): the worker's job kinds, the dispatch of operator webhook events,
 * and the caller webhook event types.
 */
import { CallsModule } from "./calls/index.js"
import { CampaignsModule } from "./campaigns/index.js"
import { CommerceModule } from "./commerce/index.js"
import { FlowsModule } from "./flows/index.js"
import { MessagingModule } from "./messaging/index.js"
import { OrdersModule } from "./orders/index.js"
import * as Registry from "./Registry.js"
import { TemplatesModule } from "./templates/index.js"
import { WebhooksModule } from "./webhooks/index.js"

export * from "./calls/index.js"
export * from "./campaigns/index.js"
export * from "./commerce/index.js"
export * from "./flows/index.js"
export * from "./media/index.js"
export * from "./messaging/index.js"
export * from "./orders/index.js"
export * from "./templates/index.js"
export * from "./webhooks/index.js"

/** Job kinds, event dispatch and caller event types of every module. */
export const Modules = Registry.make([
  TemplatesModule.module,
  MessagingModule.module,
  CampaignsModule.module,
  WebhooksModule.module,
  CommerceModule.module,
  OrdersModule.module,
  CallsModule.module,
  FlowsModule.module
])
