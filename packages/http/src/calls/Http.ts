/** The handlers of the call routes: each calls its use case, whose answer the route's schema encodes. */
import { HttpApiBuilder } from "@effect/platform"
import { CallPermissions, CallSandbox } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { CallsGroup } from "./Api.js"

export const CallsLive = HttpApiBuilder.group(apiOf(CallsGroup), "calls", (h) =>
  h
    .handle("permission", ({ path }) => CallPermissions.get(path.phone))
    .handle("requestPermission", ({ payload }) => CallPermissions.request(payload))
    .handle("sandboxPermissionReply", ({ payload }) => CallSandbox.permissionReply(payload))
)
