/**
 * The calls module's own refusals. Each carries what the caller needs to act on it; the
 * HTTP status and code are attached in `@switchboard/http` (`ApiError.ts`).
 */
import { Schema } from "effect"
import * as Time from "../shared/Time.js"

/** A business-initiated call needs the customer's valid permission, checked at call time. */
export class CallPermissionRequired extends Schema.TaggedError<CallPermissionRequired>()("CallPermissionRequired", {
  phone: Schema.String,
  status: Schema.String
}) {
  override get message(): string {
    return `The customer ${this.phone} has not given call permission (status '${this.status}'); request it with POST /chat/calls/permissions`
  }
}

/** The permission-request budget (1 per 24 h, 2 per 7 days) is used up; nothing was sent. */
export class CallPermissionRequestLimited extends Schema.TaggedError<CallPermissionRequestLimited>()("CallPermissionRequestLimited", {
  phone: Schema.String,
  nextAllowedAt: Schema.Number
}) {
  override get message(): string {
    return `A call permission request was sent to ${this.phone} too recently; the next may be sent at ${Time.toIso(this.nextAllowedAt)}`
  }
}

const refusal = { operatorCode: Schema.Number, detail: Schema.String }

/** Another call with this customer is live (operator code 138003). */
export class CallInProgress extends Schema.TaggedError<CallInProgress>()("CallInProgress", refusal) {
  override get message(): string {
    return `Another call with this customer is in progress: ${this.detail}`
  }
}

/** The customer cannot be called: not on WhatsApp, an old client, terms not accepted (138001). */
export class CustomerNotCallable extends Schema.TaggedError<CustomerNotCallable>()("CustomerNotCallable", refusal) {
  override get message(): string {
    return `The customer cannot be called: ${this.detail}`
  }
}

/** 5 connected business-initiated calls per customer per 24 h (138012); `nextAllowedAt` when the operator said it. */
export class CallLimitReached extends Schema.TaggedError<CallLimitReached>()("CallLimitReached", {
  ...refusal,
  nextAllowedAt: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const next = this.nextAllowedAt === undefined ? "" : `; the next call may start at ${Time.toIso(this.nextAllowedAt)}`
    return `The limit of 5 connected business-initiated calls to this customer in 24 hours is reached${next}`
  }
}

/** Calling is not enabled for the number, or cannot be (138000, 138018). */
export class CallingNotEnabled extends Schema.TaggedError<CallingNotEnabled>()("CallingNotEnabled", refusal) {
  override get message(): string {
    return `Calling is not enabled for the store's number: ${this.detail}; enable it with PATCH /chat/calls/settings`
  }
}

/** The operator's refusals of a call action, named. */
export type CallRefusal = CallInProgress | CustomerNotCallable | CallLimitReached | CallingNotEnabled
