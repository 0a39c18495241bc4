/**
 * `GET /{business_id}/owned_product_catalogs` (GRAPH_API.md §8.1, paged as §1.2): the
 * business's catalogs in pages of `limit` (25 by default), `paging.cursors.after` and
 * `paging.next` while more follow; an unknown business is error 100. A sweep reads every page
 * to find the catalog a crashed create made by its name.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"

const WABA = "700000000000051"
const BUSINESS = `8${WABA.slice(1)}`

let emulator: Emulator

beforeAll(async () => {
  emulator = await startEmulator({ appSecret: "owned-catalogs-secret" })
})

afterAll(async () => {
  await emulator?.close()
})

const graph = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${emulator.url}/v23.0${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: "Bearer any-token" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, json: (await response.json()) as any }
}

it("pages the business's catalogs by cursor and refuses an unknown business", async () => {
  const account = await fetch(`${emulator.url}/_emulator/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ waba_id: WABA, phone_number_id: "200000000000051" })
  })
  expect(account.status).toBe(200)
  const ids: Array<string> = []
  for (let i = 0; i < 30; i++) ids.push((await graph("POST", `/${BUSINESS}/owned_product_catalogs`, { name: `Catalog ${i % 3}` })).json.id)
  const first = await graph("GET", `/${BUSINESS}/owned_product_catalogs`)
  expect(first.status).toBe(200)
  expect(first.json.data.length).toBe(25)
  expect(first.json.paging.next).toEqual(expect.stringContaining(`after=${first.json.paging.cursors.after}`))
  const second = await graph("GET", `/${BUSINESS}/owned_product_catalogs?after=${first.json.paging.cursors.after}`)
  expect(second.json.data.length).toBe(5)
  expect(second.json.paging.next).toBeUndefined()
  expect([...first.json.data, ...second.json.data].map((c: any) => c.id)).toEqual(ids)
  expect(second.json.data[0]).toMatchObject({ name: expect.stringMatching(/^Catalog \d$/), business: { id: BUSINESS } })
  const unknown = await graph("GET", "/899999999999999/owned_product_catalogs")
  expect(unknown.status).toBe(400)
  expect(unknown.json.error.code).toBe(100)
})
