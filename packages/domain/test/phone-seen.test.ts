/** `CampaignRecipients.phoneSeen`: the repeats of a request's phones, without a Set while they come sorted. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CampaignRecipients } from "@switchboard/domain"

describe("phoneSeen", () => {
  it("phoneSeen answers what a Set answers, and lists the new phones in the order given, sorted or not", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("+15550001", "+15550002", "+15550003", "+15550010", "+4420", "+4420 ", "", "+1"), { maxLength: 40 }),
        fc.boolean(),
        (given, sortFirst) => {
          const phones = sortFirst ? [...given].sort() : given
          const seen: Array<string> = []
          const phoneSeen = CampaignRecipients.phoneSeen(seen)
          const set = new Set<string>()
          const firsts: Array<string> = []
          for (const phone of phones) {
            const isNew = !set.has(phone)
            set.add(phone)
            if (isNew) firsts.push(phone)
            expect(phoneSeen.add(phone)).toBe(isNew)
          }
          expect(seen).toEqual(firsts)
        }
      )
    )
  })
})
