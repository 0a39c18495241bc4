/**
 * The operator's commerce (GRAPH_API.md §8), as the commerce use cases need it: one
 * capability of the operator, one tag (see `README.md` in this folder). So far a phone
 * number's WhatsApp commerce settings (§8.1): whether customers see the cart and the
 * catalog in the conversation; and catalogs (§8.1): create, find, connect to the WABA,
 * rename, delete. Item batches, feeds and shipping profiles join as the module grows.
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`CommerceClient`); the sandbox is
 * the emulator behind the same tag.
 *
 * Errors: a read the operator refuses or cannot answer is `OperatorUnavailable` (with the
 * operator's code when it gave one); a change it refuses is `OperatorRejected` with its code.
 * Both calls are idempotent and retried inside the adapter.
 */
import { Context, type Effect, type Option } from "effect"
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
    /**
     * Creates a catalog (vertical `commerce`) owned by the account's business (read from the
     * WABA's `owner_business_info`) and connects it to the account's WABA. Answers the
     * operator's catalog id. Not retried after a lost answer (a retry could make two).
     */
    readonly createCatalog: (account: OperatorAccount, name: string) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
    /** The operator's catalog `operatorCatalogId`: its name; none when the operator has no such catalog. */
    readonly findCatalog: (
      account: OperatorAccount,
      operatorCatalogId: string
    ) => Effect.Effect<Option.Option<{ readonly name: string }>, OperatorUnavailable>
    /** Connects (true) or disconnects (false) the catalog and the account's WABA. Idempotent. */
    readonly connectCatalog: (
      account: OperatorAccount,
      operatorCatalogId: string,
      connected: boolean
    ) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** Renames the catalog. */
    readonly renameCatalog: (
      account: OperatorAccount,
      operatorCatalogId: string,
      name: string
    ) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** The account's phone number as the operator rates it (`GET /{PHONE_NUMBER_ID}?fields=status,quality_rating`). */
    readonly phoneStanding: (
      account: OperatorAccount
    ) => Effect.Effect<{ readonly status: string; readonly qualityRating: string }, OperatorUnavailable>
    /** Deletes the catalog; one the operator no longer has is not an error. */
    readonly deleteCatalog: (account: OperatorAccount, operatorCatalogId: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
  }
>() {}
