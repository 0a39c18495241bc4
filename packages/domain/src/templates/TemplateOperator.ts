/**
 * The operator's message templates (GRAPH_API.md §4), as the template use cases need them:
 * one capability of the operator, one tag. See `README.md` in this folder for the pattern
 * every operator capability follows.
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`TemplateClient`); the sandbox is
 * the emulator behind the same tag. Which base URL and credentials serve an account is the
 * adapter's business: the domain only says which account.
 *
 * Errors: `OperatorRejected` carries the operator's refusal code; `OperatorUnavailable` says
 * whether the operator throttled (`rate_limited`) or gave no usable answer (`unreachable`).
 * Reads and deletes are retried inside the adapter (they are idempotent); a creation is
 * retried only after a rate limit (a lost answer may hide an accepted template).
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"
import type { TemplateState } from "./TemplateRepo.js"
import type { Category, Status, TemplateData } from "./Template.js"

/** The operator's answer to a template submission. */
export interface CreatedTemplate {
  readonly operatorId: string
  readonly status: Status
  readonly category: Category
}

export class TemplateOperator extends Context.Tag("@switchboard/domain/TemplateOperator")<
  TemplateOperator,
  {
    /** Submits a template for review. The operator answers PENDING (normally). */
    readonly createTemplate: (account: OperatorAccount, data: TemplateData) => Effect.Effect<CreatedTemplate, OperatorRejected | OperatorUnavailable>
    /**
     * Every template of the account, all pages followed. A refusal (a bad token, say) is
     * `OperatorUnavailable` with the operator's code: a sync has nothing to reject.
     */
    readonly listTemplates: (account: OperatorAccount) => Effect.Effect<ReadonlyArray<TemplateState>, OperatorUnavailable>
    /**
     * `GET /{WABA_ID}/message_templates?name=`: the account's templates of that exact name (a
     * sweep's `recover` of a create looks here for one the operator took before a crash).
     */
    readonly findTemplates: (account: OperatorAccount, name: string) => Effect.Effect<ReadonlyArray<TemplateState>, OperatorUnavailable>
    /** Deletes every language of the template. A name the operator does not know is not an error. */
    readonly deleteTemplate: (account: OperatorAccount, name: string) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
  }
>() {}
