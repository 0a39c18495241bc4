/**
 * The operator's commerce (GRAPH_API.md §8), as the commerce use cases need it: one
 * capability of the operator, one tag (see `README.md` in this folder). So far a phone
 * number's WhatsApp commerce settings (§8.1): whether customers see the cart and the
 * catalog in the conversation. Catalogs, item batches, feeds and shipping profiles join as
 * the commerce module grows.
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`CommerceClient`); the sandbox is
 * the emulator behind the same tag.
 *
 * Errors: a read the operator refuses or cannot answer is `OperatorUnavailable` (with the
 * operator's code when it gave one); a change it refuses is `OperatorRejected` with its code.
 * Both calls are idempotent and retried inside the adapter.
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

/** What the operator holds for the account's phone number. */
export interface PhoneCommerceSettings {
  readonly isCartEnabled: boolean
  readonly isCatalogVisible: boolean
}

export class CommerceOperator extends Context.Tag("@switchboard/domain/CommerceOperator")<
  CommerceOperator,
  {
    /** The commerce settings of the account's phone number (`GET /{PHONE_NUMBER_ID}/whatsapp_commerce_settings`). */
    readonly getCommerceSettings: (account: OperatorAccount) => Effect.Effect<PhoneCommerceSettings, OperatorUnavailable>
    /** Changes the settings named in `patch` (`POST` of the same path); the others stay. */
    readonly setCommerceSettings: (
      account: OperatorAccount,
      patch: Partial<PhoneCommerceSettings>
    ) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
  }
>() {}
