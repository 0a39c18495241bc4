/** The commerce module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as ShippingProfile from "./ShippingProfile.js"
export * as ShippingProfileRepo from "./ShippingProfileRepo.js"
export * as ShippingProfiles from "./ShippingProfiles.js"
export * as CommerceModule from "./module.js"
export * as CommerceOperator from "../operator/CommerceOperator.js"
export * as CommerceSettings from "./CommerceSettings.js"
export * as CommerceSettingsRepo from "./CommerceSettingsRepo.js"
export * as CommerceSettingsRoutes from "./CommerceSettingsRoutes.js"
