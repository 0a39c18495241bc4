/** The calls contracts' row builder (its own file: the batch contract and the repo contract both use it). */
import { Call } from "@switchboard/domain"
import { Effect } from "effect"
import { newRow, type tenantOf } from "./foundation-fixtures.js"

/** A business-initiated call of `tenant`, calling, with `overrides`. */
export const newCall = (tenant: ReturnType<typeof tenantOf>, overrides: Partial<Call.Call> = {}) =>
  Effect.gen(function* () {
    return {
      ...(yield* newRow(tenant, Call.CallId.generate)),
      phone: "+15551230007",
      direction: "business_initiated",
      status: "calling",
      operatorCallId: null,
      offerSdp: "v=0\r\n",
      answerSdp: null,
      payload: null,
      endStatus: null,
      startedAt: null,
      endedAt: null,
      durationSeconds: null,
      error: null,
      ...overrides
    } satisfies Call.Call
  })
