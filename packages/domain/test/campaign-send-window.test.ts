/**
 * A campaign's send window in the recipients' local time (`CampaignSendWindow`): daylight
 * saving time, windows across midnight, a start the clocks skip, +1 numbers in different
 * zones, and the rule for a number that may be in several zones.
 */
import { describe, expect, it } from "vitest"
import { CampaignSendWindow as W } from "@switchboard/domain"

const at = (iso: string) => Date.parse(iso)
const DAY_WINDOW = { from: "09:00", to: "20:00" }

describe("send window in one zone", () => {
  it("opens at 09:00 local time, standard time and summer time alike", () => {
    // New York at midnight: EST (UTC-5) on 7 March 2026, EDT (UTC-4) from 8 March 02:00
    expect(W.nextOpening(DAY_WINDOW, ["America/New_York"], at("2026-03-07T05:00:00Z"))).toBe(at("2026-03-07T14:00:00Z"))
    expect(W.nextOpening(DAY_WINDOW, ["America/New_York"], at("2026-03-08T05:00:00Z"))).toBe(at("2026-03-08T13:00:00Z"))
    // Paris in July (CEST, UTC+2): 21:30 is after the window, the next opening is tomorrow 09:00
    expect(W.nextOpening(DAY_WINDOW, ["Europe/Paris"], at("2026-07-10T19:30:00Z"))).toBe(at("2026-07-11T07:00:00Z"))
  })

  it("is open inside, closed at `to`, and answers `at` itself when open", () => {
    const noon = at("2026-07-10T16:00:00Z") // 12:00 in New York (EDT)
    expect(W.isOpen(DAY_WINDOW, ["America/New_York"], noon)).toBe(true)
    expect(W.nextOpening(DAY_WINDOW, ["America/New_York"], noon)).toBe(noon)
    expect(W.isOpen(DAY_WINDOW, ["America/New_York"], at("2026-07-11T00:00:00Z"))).toBe(false) // 20:00 sharp
    expect(W.isOpen(DAY_WINDOW, ["America/New_York"], at("2026-07-10T23:59:00Z"))).toBe(true) // 19:59
  })

  it("a window across midnight (22:00 to 06:00)", () => {
    const night = { from: "22:00", to: "06:00" }
    // Paris in January (CET, UTC+1)
    expect(W.isOpen(night, ["Europe/Paris"], at("2026-01-15T23:30:00Z"))).toBe(true) // 00:30
    expect(W.isOpen(night, ["Europe/Paris"], at("2026-01-15T04:59:00Z"))).toBe(true) // 05:59
    expect(W.isOpen(night, ["Europe/Paris"], at("2026-01-15T05:00:00Z"))).toBe(false) // 06:00
    expect(W.nextOpening(night, ["Europe/Paris"], at("2026-01-15T12:00:00Z"))).toBe(at("2026-01-15T21:00:00Z"))
  })

  it("a start the clocks skip opens when they jump", () => {
    // 8 March 2026 in New York: 02:00 EST becomes 03:00 EDT (07:00Z); 02:30 does not exist that night
    expect(W.nextOpening({ from: "02:30", to: "05:00" }, ["America/New_York"], at("2026-03-08T05:00:00Z"))).toBe(at("2026-03-08T07:00:00Z"))
  })

  it("the autumn change: 09:00 after the clocks went back", () => {
    // 1 November 2026 in New York: 02:00 EDT becomes 01:00 EST; 09:00 EST is 14:00Z
    expect(W.nextOpening(DAY_WINDOW, ["America/New_York"], at("2026-11-01T04:00:00Z"))).toBe(at("2026-11-01T14:00:00Z"))
  })

  it("from equal to to is open all day; an unknown or missing zone is UTC", () => {
    expect(W.isOpen({ from: "08:00", to: "08:00" }, ["Asia/Tokyo"], at("2026-07-10T19:00:00Z"))).toBe(true)
    expect(W.zonesOf(null)).toEqual(["UTC"])
    expect(W.zonesOf("Not/AZone")).toEqual(["UTC"])
    expect(W.zonesOf("America/New_York&Not/AZone")).toEqual(["America/New_York"])
    expect(W.nextOpening(DAY_WINDOW, W.zonesOf(null), at("2026-07-10T21:00:00Z"))).toBe(at("2026-07-11T09:00:00Z"))
  })
})

describe("+1 numbers and numbers in several zones", () => {
  // 13:30Z on 1 June 2026: 09:30 in New York (EDT), 06:30 in Los Angeles (PDT)
  const morning = at("2026-06-01T13:30:00Z")

  it("New York is open while Los Angeles waits until 09:00 its time", () => {
    expect(W.isOpenFor(DAY_WINDOW, ["America/New_York"], morning)).toBe(true)
    expect(W.isOpenFor(DAY_WINDOW, ["America/Los_Angeles"], morning)).toBe(false)
    expect(W.nextOpening(DAY_WINDOW, ["America/Los_Angeles"], morning)).toBe(at("2026-06-01T16:00:00Z"))
  })

  it("a number that may be in either waits until the window is open in both", () => {
    const both = ["America/New_York", "America/Los_Angeles"]
    expect(W.isOpenFor(DAY_WINDOW, both, morning)).toBe(false)
    expect(W.nextOpening(DAY_WINDOW, both, morning)).toBe(at("2026-06-01T16:00:00Z"))
    // and it closes for both when New York closes (20:00 EDT = 00:00Z)
    expect(W.isOpenFor(DAY_WINDOW, both, at("2026-06-02T00:00:00Z"))).toBe(false)
    expect(W.isOpenFor(DAY_WINDOW, both, at("2026-06-01T23:59:00Z"))).toBe(true)
  })

  it("zones too far apart for a short window: the window of the median zone", () => {
    // Moscow (UTC+3) and Kamchatka (UTC+12): a three-hour window is never open in both
    const apart = ["Asia/Kamchatka", "Europe/Moscow"]
    const short = { from: "09:00", to: "12:00" }
    const t = at("2026-06-01T00:00:00Z") // 03:00 in Moscow
    expect(W.nextOpening(short, apart, t)).toBe(at("2026-06-01T06:00:00Z")) // 09:00 in Moscow (the lower of the two)
    expect(W.isOpenFor(short, apart, at("2026-06-01T07:00:00Z"))).toBe(true)
  })
})
