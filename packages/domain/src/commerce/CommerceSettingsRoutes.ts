/**
 * Commerce settings routes (spec §4.7). The cart and catalog switches live at the operator,
 * on the tenant's phone number: a change is a mirrored write (`settingsMirror`), made there
 * outside any transaction and recorded here only once the operator took it, so the two never disagree for long; a refusal or an unreachable
 * operator leaves ours as it was. Before the first change, a read shows the operator's
 * current switches.
 */
import { Effect, Option, Schema } from "effect"
import { ValidationFailed } from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import * as RichSend from "../templates/RichSend.js"
import { CommerceOperator } from "./CommerceOperator.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { accountFor, type Store } from "../stores/Store.js"
import { CommerceSettings, type OrderUpdatesTemplate, type UpdateCommerceSettings } from "./CommerceSettings.js"
import { CommerceSettingsRepo } from "./CommerceSettingsRepo.js"

const current = (store: Store, tenant: Tenant) =>
  Effect.gen(function* () {
    const saved = yield* (yield* CommerceSettingsRepo).find(tenant)
    if (Option.isSome(saved)) return saved.value
    const phone = yield* (yield* CommerceOperator).getCommerceSettings(accountFor(store, tenant.mode))
    return {
      storeId: tenant.storeId,
      mode: tenant.mode,
      ...phone,
      country: null,
      currency: null,
      payments: null,
      orderUpdatesTemplate: null,
      updatedAt: null
    } satisfies CommerceSettings
  })

/** `GET /chat/commerce/settings`. */
export const get = Effect.flatMap(CurrentStore, ({ store, tenant }) => current(store, tenant))

/**
 * The order-updates template must be one of the tenant's templates (in any review state: it may
 * still be pending) that an order update can fill: positional, at most three body
 * placeholders, nothing to fill in its header or buttons.
 */
const checkOrderUpdatesTemplate = (tenant: Tenant, ref: OrderUpdatesTemplate) =>
  Effect.gen(function* () {
    const path = "order_updates_template"
    const found = yield* (yield* TemplateRepo).find(tenant, ref.name, ref.language)
    if (Option.isNone(found)) return yield* ValidationFailed.of(path, `no template ${ref.name} (${ref.language}) in this store`)
    const components = found.value.components
    const needs = TemplateSend.needsOf(components)
    if (RichSend.namedTemplate(components))
      return yield* ValidationFailed.of(path, "the template must use positional placeholders ({{1}}), not named ones")
    if (needs.body > 3) return yield* ValidationFailed.of(path, `the template's body has ${needs.body} placeholders; an order update fills at most 3`)
    const header = components.find((c) => c.type === "HEADER")
    if (needs.header > 0 || (header !== undefined && header.format !== undefined && header.format !== "TEXT"))
      return yield* ValidationFailed.of(path, "the template's header must be plain text without a placeholder")
    if (needs.buttons.some((b) => b.required)) return yield* ValidationFailed.of(path, "the template's buttons must take no parameter")
  })

/** `PATCH /chat/commerce/settings`. */
export const update = (input: UpdateCommerceSettings) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (input.order_updates_template) yield* checkOrderUpdatesTemplate(tenant, input.order_updates_template)
    const before = yield* current(store, tenant)
    const switches = {
      ...(input.is_cart_enabled !== undefined ? { isCartEnabled: input.is_cart_enabled } : {}),
      ...(input.is_catalog_visible !== undefined ? { isCatalogVisible: input.is_catalog_visible } : {})
    }
    const after: CommerceSettings = {
      ...before,
      ...switches,
      ...(input.country !== undefined ? { country: input.country } : {}),
      ...(input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.payments !== undefined ? { payments: input.payments } : {}),
      ...(input.order_updates_template !== undefined ? { orderUpdatesTemplate: input.order_updates_template } : {}),
      updatedAt: yield* Time.now
    }
    if (Object.keys(switches).length === 0) return yield* Effect.as((yield* CommerceSettingsRepo).save(tenant, after), after)
    return yield* Mirror.run(settingsMirror, { tenant, account: accountFor(store, tenant.mode), prepare: Effect.succeed({ switches, after }) })
  })

const Switches = Schema.Struct({ isCartEnabled: Schema.optional(Schema.Boolean), isCatalogVisible: Schema.optional(Schema.Boolean) })

/** The switches set at the operator (outside any transaction), then the settings saved here: a mirrored write (`shared/Mirror.ts`). */
export const settingsMirror = Mirror.kind({
  kind: "commerce.settings",
  payload: Schema.Struct({ switches: Switches, after: CommerceSettings }),
  call: (p: { readonly switches: typeof Switches.Type; readonly after: CommerceSettings }, { account }) =>
    Effect.flatMap(CommerceOperator, (op) => op.setCommerceSettings(account, p.switches)),
  settle: (p, _answer, { tenant }) =>
    Effect.as(
      Effect.flatMap(CommerceSettingsRepo, (repo) => repo.save(tenant, p.after)),
      p.after
    )
})
