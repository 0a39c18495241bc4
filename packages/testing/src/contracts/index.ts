export * from "./StorageContracts.js"
export { campaignsContract } from "./campaigns.js"
export { foundationContract } from "./foundation.js"
export { messagingContract } from "./messaging-contract.js"
/** A campaign whose recipients can be claimed and reported on (for tests outside the contract). */
export { activeCampaign, laneRepo, report as campaignReport } from "./campaigns-fixtures.js"
