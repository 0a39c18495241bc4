/** The handlers of the call routes: each calls its use case, whose answer the route's schema encodes. */
import { HttpApiBuilder } from "@effect/platform"
import { CallButton, CallInsights, CallPermissions, CallSandbox, CallSettingsRoutes, Calls } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { CallsGroup } from "./Api.js"

export const CallsLive = HttpApiBuilder.group(apiOf(CallsGroup), "calls", (h) =>
  h
    .handle("list", ({ urlParams }) => Calls.list(urlParams))
    .handle("connect", ({ payload }) => Calls.connect(payload))
    .handle("button", ({ payload }) => CallButton.sendButton(payload))
    .handle("deeplink", ({ payload }) => CallButton.deepLink(payload))
    .handle("settings", () => CallSettingsRoutes.get)
    .handle("updateSettings", ({ payload }) => CallSettingsRoutes.update(payload))
    .handle("health", () => CallInsights.health)
    .handle("analytics", ({ urlParams }) => CallInsights.analytics(urlParams))
    .handle("get", ({ path }) => Calls.get(path.id))
    .handle("media", ({ path }) => Calls.media(path.id))
    .handle("preAccept", ({ path, payload }) => Calls.preAccept(path.id, payload))
    .handle("accept", ({ path, payload }) => Calls.accept(path.id, payload))
    .handle("reject", ({ path }) => Calls.reject(path.id))
    .handle("terminate", ({ path }) => Calls.terminate(path.id))
    .handle("sandboxCall", ({ payload }) => CallSandbox.placeCall(payload))
    .handle("permission", ({ path }) => CallPermissions.get(path.phone))
    .handle("requestPermission", ({ payload }) => CallPermissions.request(payload))
    .handle("sandboxPermissionReply", ({ payload }) => CallSandbox.permissionReply(payload))
)
