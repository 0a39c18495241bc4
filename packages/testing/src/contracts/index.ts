export * from "./StorageContracts.js"
export { campaignsContract } from "./campaigns.js"
export { foundationContract } from "./foundation.js"
export { messagingContract } from "./messaging-contract.js"
