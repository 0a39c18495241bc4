export * from "./ContractSuite.js"
