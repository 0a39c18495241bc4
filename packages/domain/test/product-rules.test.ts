/**
 * The product rules (`commerce/ProductRules.ts`): what a CREATE, an UPDATE and a DELETE
 * need, and that every refusal names its field under the caller's path.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { ProductRules } from "../src/index.js"

const valid = { retailer_id: "SKU-1", name: "Blue mug", price: 1299, currency: "USD", image_url: "https://shop.example/mug.jpg" }

const pathsOf = (checked: ProductRules.Checked) => (checked.ok ? [] : checked.issues.map((i) => i.path))

describe("ProductRules.check", () => {
  it("a CREATE with the required fields passes and keeps exactly what was given; complete() adds the operator's defaults", () => {
    const checked = ProductRules.check("CREATE", { ...valid, sale_price: 999, inventory: 3 })
    expect(checked).toEqual({ ok: true, data: { ...valid, sale_price: 999, inventory: 3 } })
    if (!checked.ok) return
    expect(ProductRules.complete(checked.data)).toMatchObject({
      availability: "in stock",
      condition: "new",
      visibility: "published",
      description: null
    })
  })

  it("a CREATE without each required field names it", () => {
    for (const field of ProductRules.REQUIRED_TO_CREATE) {
      const { [field]: _, ...rest } = valid
      expect(pathsOf(ProductRules.check("CREATE", rest, "requests[4].data"))).toContain(`requests[4].data.${field}`)
    }
  })

  it("an UPDATE takes any subset; a DELETE takes retailer_id alone", () => {
    expect(ProductRules.check("UPDATE", { retailer_id: "SKU-1", price: 5 }).ok).toBe(true)
    expect(ProductRules.check("DELETE", { retailer_id: "SKU-1" }).ok).toBe(true)
    expect(pathsOf(ProductRules.check("DELETE", { retailer_id: "SKU-1", price: 5 }))).toEqual(["price"])
    expect(pathsOf(ProductRules.check("UPDATE", { price: 5 }))).toEqual(["retailer_id"])
  })

  it("refuses decimal, negative and string prices, unknown currencies, a sale price not below the price, bad enums and URLs, unknown fields", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ price: 12.99 }, "price"],
      [{ price: -1 }, "price"],
      [{ price: "1299" }, "price"],
      [{ currency: "XYZ" }, "currency"],
      [{ currency: "usd" }, "currency"],
      [{ sale_price: 1299 }, "sale_price"],
      [{ availability: "in_stock" }, "availability"],
      [{ condition: "mint" }, "condition"],
      [{ visibility: "hidden" }, "visibility"],
      [{ image_url: "ftp://x/y.jpg" }, "image_url"],
      [{ url: "not a url" }, "url"],
      [{ name: "x".repeat(201) }, "name"],
      [{ inventory: 1.5 }, "inventory"],
      [{ colour: "blue" }, "colour"]
    ]
    for (const [patch, field] of cases) expect(pathsOf(ProductRules.check("CREATE", { ...valid, ...patch })), JSON.stringify(patch)).toEqual([field])
  })

  it("property: any integer price >= 0 with a known currency passes; any non-integer or negative price is refused naming price", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (price) => {
        const ok = Number.isSafeInteger(price) && price >= 0
        expect(ProductRules.check("UPDATE", { retailer_id: "r", price }).ok).toBe(ok)
      })
    )
  })
})
