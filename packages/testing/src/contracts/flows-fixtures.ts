/** The flows contracts' row builder (its own file: the batch contract and the repo contract both use it). */
import { Flow, Time } from "@switchboard/domain"
import { Effect } from "effect"

/** A draft flow of `tenant`, version 1, with `fields`. */
export const flow = (tenant: { readonly storeId: any; readonly mode: "live" | "test" }, fields: Partial<Flow.Flow> = {}) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const id = yield* Flow.FlowId.generate
    return {
      id,
      storeId: tenant.storeId,
      mode: tenant.mode,
      name: "Sign up",
      categories: ["SIGN_UP", "OTHER"],
      status: "DRAFT",
      version: 1,
      previousVersionId: null,
      lineageId: id,
      json: null,
      jsonVersion: null,
      validationErrors: [],
      endpointUrl: null,
      operatorFlowId: "1234567890",
      createdAt: now,
      updatedAt: now,
      ...fields
    } satisfies Flow.Flow
  })
