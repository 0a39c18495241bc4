/**
 * The campaigns a lane reads every 100 ms (`CampaignLaneRepo.activeOfLane`), decoded again
 * only when their settings changed. Decoding a campaign row runs a Schema over each of its
 * JSON columns (parameters, header, buttons, template components, send window); between two
 * reads of a sending campaign only its counters change (each write of outcomes), so a row
 * whose other columns are the ones decoded last time answers the campaign decoded then, with
 * the row's counters. The answer is what `toCampaign` gives for the row (the contract
 * compares both).
 */
import { Campaign } from "@switchboard/domain"
import { campaignColumns, toCampaign } from "./Columns.js"

/** Campaigns kept at most (by id) before the memory is cleared. */
const BOUND = 1000

const counterFields = Object.keys(Campaign.Counters.fields) as ReadonlyArray<keyof Campaign.Counters>
const counterColumns: ReadonlySet<string> = new Set(counterFields.map((field) => campaignColumns.column[field]))

type Row = Record<string, unknown>

/** Whether two rows of one campaign have the same columns but the counters. */
const sameSettings = (a: Row, b: Row): boolean => {
  for (const column in b) if (!counterColumns.has(column) && a[column] !== b[column]) return false
  return true
}

/** A decoder of campaign rows that remembers the last row and campaign of each id. */
export const make = (): ((row: unknown) => Campaign.Campaign) => {
  const last = new Map<string, { readonly row: Row; readonly campaign: Campaign.Campaign }>()
  return (input) => {
    const row = input as Row
    const id = row[campaignColumns.column.id] as string
    const known = last.get(id)
    if (known !== undefined && sameSettings(known.row, row)) {
      let same = true
      for (const field of counterFields) if (known.row[campaignColumns.column[field]] !== row[campaignColumns.column[field]]) same = false
      if (same) return known.campaign
      // the integer columns as `Columns.integer` reads them
      const counters: Record<string, number> = {}
      for (const field of counterFields) counters[field] = Number(row[campaignColumns.column[field]])
      const campaign: Campaign.Campaign = { ...known.campaign, ...counters }
      last.set(id, { row, campaign })
      return campaign
    }
    const campaign = toCampaign(row)
    if (last.size >= BOUND) last.clear()
    last.set(id, { row, campaign })
    return campaign
  }
}
