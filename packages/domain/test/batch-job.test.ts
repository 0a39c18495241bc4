/**
 * The batch job's pure parts (`commerce/BatchJob.ts`): `stored` requests (a feed's chunk
 * keeps retailer ids) are sent as the product stands, and a late verdict does not bring back
 * a product deleted here since it was sent.
 */
import { describe, expect, it } from "vitest"
import { BatchJob, Product, type ProductBatch, ProductRules } from "../src/index.js"

const product = (retailerId: string, name: string): Product.Product => ({
  id: `prd_${retailerId}` as Product.ProductId,
  storeId: "str_1" as never,
  mode: "live",
  catalogId: "cat_1" as never,
  ...Product.fieldsOf(ProductRules.complete({ retailer_id: retailerId, name, price: 100, currency: "USD", image_url: "https://i.example/x.jpg" })),
  reviewStatus: "pending",
  errors: [],
  createdAt: 1,
  updatedAt: 1
})

const batch = (source: ProductBatch.Source): ProductBatch.ProductBatch => ({
  id: "pbh_1" as ProductBatch.ProductBatchId,
  storeId: "str_1" as never,
  mode: "live",
  catalogId: "cat_1" as never,
  source,
  status: "in_progress",
  allowUpsert: true,
  total: 2,
  processed: 0,
  succeeded: 0,
  failed: 0,
  createdAt: 1,
  updatedAt: 1,
  finishedAt: null
})

describe("BatchJob.resolve", () => {
  it("fills a stored request with the product as it stands; leaves copies and unknown ids alone", () => {
    const stored = new Map([["A", product("A", "Mug, renamed since")]])
    const requests: Array<ProductBatch.ChunkRequest> = [
      { index: 0, method: "UPDATE", stored: true, data: { retailer_id: "A" } },
      { index: 1, method: "UPDATE", data: { retailer_id: "B", name: "Copied" } },
      { index: 2, method: "UPDATE", stored: true, data: { retailer_id: "GONE" } }
    ]
    const resolved = BatchJob.resolve(requests, stored)
    expect(resolved[0]).toEqual({ index: 0, method: "UPDATE", data: Product.dataOf(stored.get("A")!) })
    expect(resolved[0].data.name).toBe("Mug, renamed since")
    expect(resolved[1]).toBe(requests[1])
    expect(resolved[2]).toEqual({ index: 2, method: "UPDATE", data: { retailer_id: "GONE" } })
  })
})

describe("BatchJob.outcomeOf", () => {
  const requests: Array<ProductBatch.ChunkRequest> = [
    { index: 0, method: "UPDATE", data: Product.dataOf(product("A", "Mug")) },
    { index: 1, method: "UPDATE", data: Product.dataOf(product("B", "Hat")) }
  ]
  const existing = new Map([["A", product("A", "Mug")]])
  const ids = ["prd_new0", "prd_new1"] as Array<Product.ProductId>

  it("a feed's verdict on a product deleted here since is counted but does not bring it back", () => {
    const outcome = BatchJob.outcomeOf(batch("feed"), requests, [], existing, ids, 5)
    expect(outcome.upserts.map((p) => [p.retailerId, p.reviewStatus])).toEqual([["A", "approved"]])
    expect(outcome).toMatchObject({ succeeded: 2, failed: 0 })
  })

  it("the batch route's verdict creates the product, and a review issue stores it rejected", () => {
    const outcome = BatchJob.outcomeOf(
      batch("api"),
      requests,
      [{ line: 1, retailerId: "B", type: "POLICY_VIOLATION", severity: "MUST_FIX", message: "not allowed" }],
      existing,
      ids,
      5
    )
    expect(outcome.upserts.map((p) => [p.retailerId, p.id, p.reviewStatus])).toEqual([
      ["A", "prd_A", "approved"],
      ["B", "prd_new1", "rejected"]
    ])
    expect(outcome.errors).toEqual([{ index: 1, retailer_id: "B", code: "policy_violation", message: "not allowed", field: null }])
    expect(outcome).toMatchObject({ succeeded: 1, failed: 1 })
  })
})
