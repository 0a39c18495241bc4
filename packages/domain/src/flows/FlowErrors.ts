/** The flows module's own errors; their HTTP status and code are attached in `@switchboard/http` (`ApiError.ts`). */
import { Schema } from "effect"

/** A flow that is not a DRAFT cannot be edited (409 `flow_published`): make a new version instead. */
export class FlowPublished extends Schema.TaggedError<FlowPublished>()("FlowPublished", {
  status: Schema.String
}) {
  override get message(): string {
    return `The flow is ${this.status}: only a DRAFT can be edited; create a new version with POST /chat/flows/{id}/versions`
  }
}

/** One error of a rejected Flow JSON (see `FlowJson.FlowJsonError`). */
export const JsonIssue = Schema.Struct({
  error: Schema.String,
  error_type: Schema.String,
  message: Schema.String,
  path: Schema.String,
  line_start: Schema.optional(Schema.Number),
  line_end: Schema.optional(Schema.Number),
  column_start: Schema.optional(Schema.Number),
  column_end: Schema.optional(Schema.Number)
})

/**
 * A Flow JSON with structural mistakes (400 `validation_failed`): `errors` lists each with
 * its path (and its position when the JSON was sent as text); `fixesTried` what autoFix
 * corrected before the rest proved unfixable.
 */
export class FlowJsonInvalid extends Schema.TaggedError<FlowJsonInvalid>()("FlowJsonInvalid", {
  errors: Schema.Array(JsonIssue),
  fixesTried: Schema.Array(Schema.Struct({ path: Schema.String, fix: Schema.String, before: Schema.Unknown, after: Schema.Unknown }))
}) {
  override get message(): string {
    const first = this.errors[0]
    const more = this.errors.length > 1 ? ` (and ${this.errors.length - 1} more)` : ""
    const tried = this.fixesTried.length === 0 ? "" : `; autoFix tried ${this.fixesTried.map((f) => `${f.fix} at ${f.path}`).join(", ")}`
    return `The Flow JSON is invalid: ${first === undefined ? "" : `${first.path || "/"}: ${first.message}`}${more}${tried}`
  }
}
