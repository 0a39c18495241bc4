/**
 * Feed files as products (`FeedRows`), the schedule's next run (`Feed.nextRun`) and exact
 * decimal prices (`Money.parseDecimal`).
 */
import { Feed, FeedRows, Money } from "../src/index.js"
import { describe, expect, it } from "vitest"

describe("FeedRows", () => {
  it("reads our column names and the operator's feed names", () => {
    const found = FeedRows.columnsOf([
      "ID",
      "title",
      "Price",
      "image_link",
      "link",
      "google_product_category",
      "quantity_to_sell_on_facebook",
      "color"
    ])
    expect(found).toEqual({ columns: ["retailer_id", "name", "price", "image_url", "url", "category", "inventory", undefined] })
    expect(FeedRows.columnsOf(["sku", "name"])).toEqual({ error: "the header has no retailer_id (or id) column" })
    expect(FeedRows.columnsOf(["id", "retailer_id"])).toEqual({ error: "the header names retailer_id twice" })
  })

  it("prices: minor units with the row's or the feed's currency, or an amount with its currency, exactly", () => {
    const columns = ["retailer_id", "price", "sale_price", "currency"]
    expect(FeedRows.dataOf(columns, ["A", "1999", "", ""], "USD")).toEqual({ data: { retailer_id: "A", price: 1999, currency: "USD" }, issues: [] })
    expect(FeedRows.dataOf(columns, ["A", "19.99 USD", "9.5 USD", ""], null).data).toMatchObject({ price: 1999, sale_price: 950, currency: "USD" })
    expect(FeedRows.dataOf(columns, ["A", "1500 JPY", "", ""], null).data).toMatchObject({ price: 1500, currency: "JPY" })
    expect(FeedRows.dataOf(columns, ["A", "1.234 KWD", "", ""], null).data).toMatchObject({ price: 1234, currency: "KWD" })
    expect(FeedRows.dataOf(columns, ["A", "12.345 USD", "", ""], null).issues).toEqual([
      { path: "price", message: "has more decimals than USD allows" }
    ])
    expect(FeedRows.dataOf(columns, ["A", "19.99", "", ""], "USD").issues[0].path).toBe("price")
    expect(FeedRows.dataOf(columns, ["A", "19.99 EUR", "", "USD"], null).issues).toEqual([
      { path: "price", message: "is in EUR but the product's currency is USD" }
    ])
    expect(FeedRows.dataOf(columns, ["A", "1 XYZ", "", ""], null).issues[0].message).toMatch(/not an ISO 4217/)
  })

  it("detects the delimiter from the header unless the feed names one", () => {
    expect(FeedRows.delimiterOf("AUTODETECT", "id\ttitle\tprice")).toBe("\t")
    expect(FeedRows.delimiterOf("AUTODETECT", "id;title;price")).toBe(";")
    expect(FeedRows.delimiterOf("AUTODETECT", "id")).toBe(",")
    expect(FeedRows.delimiterOf("BAR", "id,title")).toBe("|")
  })

  it("parseDecimal is exact where floating point is not", () => {
    expect(Money.parseDecimal("0.29", "USD")).toBe(29)
    expect(Money.parseDecimal("1.005", "USD")).toBeUndefined()
    expect(Money.parseDecimal("-1", "USD")).toBeUndefined()
    expect(Money.parseDecimal("1e3", "USD")).toBeUndefined()
  })
})

describe("Feed.nextRun", () => {
  const at = Date.UTC(2026, 10, 24, 10, 30) // a Tuesday, 10:30 UTC
  it("hourly: the next full hour", () => {
    expect(Feed.nextRun({ interval: "HOURLY", url: "https://x.example.com/f.csv", hour: 0, day_of_week: 0 }, at)).toBe(Date.UTC(2026, 10, 24, 11))
  })
  it("daily: today at the hour if it is still ahead, else tomorrow", () => {
    const daily = (hour: number) => ({ interval: "DAILY" as const, url: "https://x.example.com/f.csv", hour, day_of_week: 0 })
    expect(Feed.nextRun(daily(12), at)).toBe(Date.UTC(2026, 10, 24, 12))
    expect(Feed.nextRun(daily(3), at)).toBe(Date.UTC(2026, 10, 25, 3))
  })
  it("weekly: the next such weekday at the hour, strictly after", () => {
    const weekly = (day: number, hour: number) => ({ interval: "WEEKLY" as const, url: "https://x.example.com/f.csv", hour, day_of_week: day })
    expect(Feed.nextRun(weekly(5, 3), at)).toBe(Date.UTC(2026, 10, 27, 3)) // Friday
    expect(Feed.nextRun(weekly(2, 12), at)).toBe(Date.UTC(2026, 10, 24, 12)) // later today
    expect(Feed.nextRun(weekly(2, 9), at)).toBe(Date.UTC(2026, 11, 1, 9)) // next Tuesday
  })
})
