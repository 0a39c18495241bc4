/**
 * The intake's route table (`internal/routes.ts`) finds the route the router serves: a literal
 * segment wins over a parameter where two routes first differ, and a parameter never matches
 * an empty segment (a trailing slash is no route).
 */
import { describe, expect, it } from "vitest"
import { SwitchboardApi } from "../src/Api.js"
import { Authentication } from "../src/Authentication.js"
import * as Routes from "../src/internal/routes.js"

const routes = Routes.make(SwitchboardApi, Authentication)

describe("the route table", () => {
  it("takes /chat/calls/permissions/media for the permission of `media`, not the media of a call named `permissions`", () => {
    expect(routes.match("GET", "/chat/calls/permissions/media")?.path).toBe("/chat/calls/permissions/:phone")
    expect(routes.match("GET", "/chat/calls/call_01M85GK8TB3E8BH2R1WY18AD8X/media")?.path).toBe("/chat/calls/:id/media")
  })

  it("finds no route for a trailing slash or an empty segment", () => {
    expect(routes.match("GET", "/chat/orders")?.path).toBe("/chat/orders")
    expect(routes.match("GET", "/chat/orders/")).toBeUndefined()
    expect(routes.match("GET", "/chat/orders//items")).toBeUndefined()
  })
})
