/**
 * The operator's commerce (GRAPH_API.md §8), as the commerce use cases need it: one
 * capability of the operator, one tag (see `README.md` in this folder). So far a phone
 * number's WhatsApp commerce settings (§8.1): whether customers see the cart and the
 * catalog in the conversation; catalogs (§8.1): create, find, connect to the WABA, rename,
 * delete; and their items through `items_batch` (§8.3): submit a chunk, read its progress.
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

/**
 * One request of an `items_batch` call, in the operator's shape (GRAPH_API.md §8.3, B.6):
 * `data.id` is the retailer id; the other keys are the product's fields with the operator's
 * names (`name`, `price` in minor units, `currency`, `image_url`, ...).
 */
export interface ItemRequest {
  readonly method: "CREATE" | "UPDATE" | "DELETE"
  readonly data: { readonly id: string } & Readonly<Record<string, unknown>>
}

/** What the operator found wrong with one request of a batch. */
export interface ItemIssue {
  /** The request's position in the chunk (0-based). */
  readonly line: number
  /** Its retailer id. */
  readonly retailerId: string
  /** The operator's type: IMAGE_QUALITY, POLICY_VIOLATION, ATTRIBUTES_INVALID, ITEM_NOT_FOUND, ... */
  readonly type: string
  readonly severity: "MUST_FIX" | "OPPORTUNITY"
  readonly message: string
}

/**
 * The progress of one submitted chunk (`check_batch_request_status`). Once `finished`,
 * `issues` holds every request the operator refused or rejected; every other request of the
 * chunk was applied and approved (DELETEs: deleted).
 */
export interface ItemsBatchProgress {
  readonly status: "started" | "dispatched" | "finished" | "error"
  readonly issues: ReadonlyArray<ItemIssue>
}

/** An item of an operator catalog, as the operator lists it. */
export interface CatalogItem {
  readonly retailerId: string
  /** Its fields with the operator's names (`name`, `price`, `currency`, `image_url`, ...). */
  readonly fields: Readonly<Record<string, unknown>>
  readonly reviewStatus: "pending" | "approved" | "rejected" | "outdated"
  readonly errors: ReadonlyArray<{ readonly type: string; readonly message: string }>
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
    /**
     * The catalogs the account's business owns named `name` (`GET /{BUSINESS_ID}/owned_product_catalogs`,
     * every page), oldest first by the operator's id. A catalog create takes no idempotency key:
     * this is how a sweep finds the one a crashed create made.
     */
    readonly findOwnedCatalogs: (account: OperatorAccount, name: string) => Effect.Effect<ReadonlyArray<string>, OperatorUnavailable>
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
    /**
     * Submits one chunk (at most 5,000 requests) to `POST /{CATALOG_ID}/items_batch` with
     * `item_type: PRODUCT_ITEM`; answers the operator's handle. Never retried inside the
     * adapter: a chunk whose answer was lost may have been taken, and the caller decides.
     * The operator's per-catalog call quota answers `OperatorUnavailable` with kind
     * `rate_limited` and code `CATALOG_BATCH_RATE_LIMIT` (80014): back off and submit again.
     */
    readonly submitItems: (
      account: OperatorAccount,
      operatorCatalogId: string,
      requests: ReadonlyArray<ItemRequest>,
      allowUpsert: boolean
    ) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
    /** The progress of a submitted chunk (`GET /{CATALOG_ID}/check_batch_request_status?handle=`). Idempotent, retried. */
    readonly itemsBatchStatus: (
      account: OperatorAccount,
      operatorCatalogId: string,
      handle: string
    ) => Effect.Effect<ItemsBatchProgress, OperatorUnavailable>
    /** One page of the catalog's items (`GET /{CATALOG_ID}/products`), after the cursor `after`; `next` is the cursor of the following page. */
    readonly listItems: (
      account: OperatorAccount,
      operatorCatalogId: string,
      after: string | undefined
    ) => Effect.Effect<{ readonly items: ReadonlyArray<CatalogItem>; readonly next: string | undefined }, OperatorUnavailable>
    /** Deletes the catalog; one the operator no longer has is not an error. */
    readonly deleteCatalog: (account: OperatorAccount, operatorCatalogId: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
  }
>() {}
