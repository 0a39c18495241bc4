export * as CampaignLane from "./CampaignLane.js"
export * as JobRunner from "./JobRunner.js"
export * as Jobs from "./Jobs.js"
